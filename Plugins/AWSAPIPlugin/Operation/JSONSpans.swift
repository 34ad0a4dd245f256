/// Byte ranges of a JSON text's members and elements, found without building any value: enough
/// to find a GraphQL response's `data` at its decode path, so that only that part is decoded.
///
/// The top level is checked member by member; a value that is skipped is scanned for its end
/// only (strings and nesting), and the part decoded afterwards is checked by the decoder. Any
/// doubt (a key with an escape, a duplicate key, a text that does not end where it should) gives
/// `nil`, and the caller takes the careful path, which says what is wrong.
package struct JSONSpans {
    private let bytes: [UInt8]

    /// Spans in `bytes`.
    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The whole text's value: its range, when only whitespace surrounds it.
    package func root() -> Range<Int>? {
        var index = skipWhitespace(from: 0)
        let start = index
        guard skipValue(&index) else { return nil }
        let end = index
        guard skipWhitespace(from: index) == bytes.count else { return nil }
        return start..<end
    }

    /// The members of the object at `span` (keys without escapes, each once), or `nil` when the
    /// span is not such an object.
    package func members(of span: Range<Int>) -> [(key: String, value: Range<Int>)]? {
        guard span.lowerBound < span.upperBound, bytes[span.lowerBound] == UInt8(ascii: "{") else { return nil }
        var members: [(key: String, value: Range<Int>)] = []
        var index = skipWhitespace(from: span.lowerBound + 1)
        if index < span.upperBound, bytes[index] == UInt8(ascii: "}") { return members }
        while index < span.upperBound {
            guard bytes[index] == UInt8(ascii: "\"") else { return nil }
            let keyStart = index + 1
            guard skipString(&index) else { return nil }
            let keyBytes = bytes[keyStart..<(index - 1)]
            guard !keyBytes.contains(UInt8(ascii: "\\")) else { return nil }
            let key = String(decoding: keyBytes, as: UTF8.self)
            guard !members.contains(where: { $0.key == key }) else { return nil }
            index = skipWhitespace(from: index)
            guard index < span.upperBound, bytes[index] == UInt8(ascii: ":") else { return nil }
            index = skipWhitespace(from: index + 1)
            let valueStart = index
            guard skipValue(&index) else { return nil }
            members.append((key, valueStart..<index))
            index = skipWhitespace(from: index)
            guard index < span.upperBound else { return nil }
            if bytes[index] == UInt8(ascii: "}") { return index + 1 == span.upperBound ? members : nil }
            guard bytes[index] == UInt8(ascii: ",") else { return nil }
            index = skipWhitespace(from: index + 1)
        }
        return nil
    }

    /// The elements of the array at `span`, or `nil` when the span is not an array.
    package func elements(of span: Range<Int>) -> [Range<Int>]? {
        guard span.lowerBound < span.upperBound, bytes[span.lowerBound] == UInt8(ascii: "[") else { return nil }
        var elements: [Range<Int>] = []
        var index = skipWhitespace(from: span.lowerBound + 1)
        if index < span.upperBound, bytes[index] == UInt8(ascii: "]") { return elements }
        while index < span.upperBound {
            let start = index
            guard skipValue(&index) else { return nil }
            elements.append(start..<index)
            index = skipWhitespace(from: index)
            guard index < span.upperBound else { return nil }
            if bytes[index] == UInt8(ascii: "]") { return index + 1 == span.upperBound ? elements : nil }
            guard bytes[index] == UInt8(ascii: ",") else { return nil }
            index = skipWhitespace(from: index + 1)
        }
        return nil
    }

    /// Whether the value at `span` is the literal `null`.
    package func isNull(_ span: Range<Int>) -> Bool {
        span.count == 4 && bytes[span].elementsEqual("null".utf8)
    }

    private func skipWhitespace(from start: Int) -> Int {
        var index = start
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): index += 1
            default: return index
            }
        }
        return index
    }

    /// Moves past the string that starts at `index` (at its opening quote).
    private func skipString(_ index: inout Int) -> Bool {
        index += 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                return true
            case UInt8(ascii: "\\"): index += 2
            default: index += 1
            }
        }
        return false
    }

    /// Moves past the value that starts at `index`: a string, an object or array (to its
    /// matching end, strings skipped), or a literal or number (to the next delimiter).
    private func skipValue(_ index: inout Int) -> Bool {
        guard index < bytes.count else { return false }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            return skipString(&index)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    guard skipString(&index) else { return false }
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 {
                        index += 1
                        return true
                    }
                default: break
                }
                index += 1
            }
            return false
        default:
            let start = index
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"),
                     UInt8(ascii: "\t"):
                    return index > start
                case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""), UInt8(ascii: ":"):
                    return false
                default: index += 1
                }
            }
            return index > start
        }
    }
}
