/// Byte ranges of a JSON text's members and elements, found without building any value: enough
/// to find a GraphQL response's `data` at its decode path, so that only that part is decoded.
///
/// The top level is checked member by member; a value that is skipped is scanned for its end
/// only (strings and nesting), and the part decoded afterwards is checked by the decoder. Any
/// doubt (a key with an escape, a wanted key twice, a text that does not end where it should)
/// gives `nil`, and the caller takes the careful path, which says what is wrong.
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

    /// The values of `keys` in the object at `span`, in the order of `keys` (`nil` for a key the
    /// object does not have); `nil` when the span is not a plain object: malformed, a key with an
    /// escape, or one of `keys` twice. No key is made into a `String`.
    package func values(of keys: [String], in span: Range<Int>) -> [Range<Int>?]? {
        var found = [Range<Int>?](repeating: nil, count: keys.count)
        let plain = forEachMember(of: span) { key, value in
            for index in keys.indices where keys[index].utf8.elementsEqual(bytes[key]) {
                guard found[index] == nil else { return false }
                found[index] = value
            }
            return true
        }
        return plain ? found : nil
    }

    /// The element at `position` of the array at `span`; `nil` when the span is not an array,
    /// is malformed or is shorter.
    package func element(_ position: Int, of span: Range<Int>) -> Range<Int>? {
        var found: Range<Int>?
        var index = 0
        let plain = forEachElement(of: span) { element in
            if index == position { found = element }
            index += 1
            return true
        }
        return plain ? found : nil
    }

    /// Whether the value at `span` is an array (its first byte; the rest is checked as it is read).
    package func isArray(_ span: Range<Int>) -> Bool {
        span.lowerBound < span.upperBound && bytes[span.lowerBound] == UInt8(ascii: "[")
    }

    /// Whether the value at `span` is the literal `null`.
    package func isNull(_ span: Range<Int>) -> Bool {
        span.count == 4 && bytes[span].elementsEqual("null".utf8)
    }

    /// Calls `visit` with each member's key (its bytes, without the quotes) and value range;
    /// `false` when the span is not a plain object or `visit` says to stop.
    private func forEachMember(of span: Range<Int>, _ visit: (Range<Int>, Range<Int>) -> Bool) -> Bool {
        guard span.lowerBound < span.upperBound, bytes[span.lowerBound] == UInt8(ascii: "{") else { return false }
        var index = skipWhitespace(from: span.lowerBound + 1)
        if index < span.upperBound, bytes[index] == UInt8(ascii: "}") { return index + 1 == span.upperBound }
        while index < span.upperBound {
            guard bytes[index] == UInt8(ascii: "\"") else { return false }
            let keyStart = index + 1
            guard skipString(&index) else { return false }
            let key = keyStart..<(index - 1)
            guard !bytes[key].contains(UInt8(ascii: "\\")) else { return false }
            index = skipWhitespace(from: index)
            guard index < span.upperBound, bytes[index] == UInt8(ascii: ":") else { return false }
            index = skipWhitespace(from: index + 1)
            let valueStart = index
            guard skipValue(&index), visit(key, valueStart..<index) else { return false }
            index = skipWhitespace(from: index)
            guard index < span.upperBound else { return false }
            if bytes[index] == UInt8(ascii: "}") { return index + 1 == span.upperBound }
            guard bytes[index] == UInt8(ascii: ",") else { return false }
            index = skipWhitespace(from: index + 1)
        }
        return false
    }

    /// Calls `visit` with each element's range; `false` when the span is not a plain array or
    /// `visit` says to stop.
    private func forEachElement(of span: Range<Int>, _ visit: (Range<Int>) -> Bool) -> Bool {
        guard isArray(span) else { return false }
        var index = skipWhitespace(from: span.lowerBound + 1)
        if index < span.upperBound, bytes[index] == UInt8(ascii: "]") { return index + 1 == span.upperBound }
        while index < span.upperBound {
            let start = index
            guard skipValue(&index), visit(start..<index) else { return false }
            index = skipWhitespace(from: index)
            guard index < span.upperBound else { return false }
            if bytes[index] == UInt8(ascii: "]") { return index + 1 == span.upperBound }
            guard bytes[index] == UInt8(ascii: ",") else { return false }
            index = skipWhitespace(from: index + 1)
        }
        return false
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
