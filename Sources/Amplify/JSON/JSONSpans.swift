/// Byte ranges of a JSON text's members and elements, found without building any value: enough
/// to find a GraphQL response's `data` at its decode path, so that only that part is decoded.
///
/// The top level is checked member by member; a value that is skipped is scanned for its end
/// only (strings and nesting), and the part decoded afterwards is checked by the decoder. Any
/// doubt (a key with an escape, a wanted key twice, a text that does not end where it should)
/// gives `nil`, and the caller takes the careful path, which says what is wrong.
package struct JSONSpans {
    let bytes: [UInt8]

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

    /// The whole text without the white space around it; `nil` when nothing else is there. (What
    /// is inside is checked by whoever reads the span: ``values(of:in:)`` for an object.)
    package func trimmed() -> Range<Int>? {
        let start = skipWhitespace(from: 0)
        var end = bytes.count
        while end > start, bytes[end - 1].isJSONWhitespace { end -= 1 }
        return start < end ? start..<end : nil
    }

    /// The text of the string at `span` when it has no escape and no control character; `nil`
    /// for anything else (not a string, an escape).
    package func plainString(_ span: Range<Int>) -> String? {
        guard span.count >= 2, bytes[span.lowerBound] == UInt8(ascii: "\""), bytes[span.upperBound - 1] == UInt8(ascii: "\"") else { return nil }
        let body = (span.lowerBound + 1)..<(span.upperBound - 1)
        guard !bytes[body].contains(where: { $0 == UInt8(ascii: "\\") || $0 < 0x20 }) else { return nil }
        return String(decoding: bytes[body], as: UTF8.self)
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

    /// The value of `key` (its UTF-8 bytes) in the object at `span`; `nil` when the object does
    /// not have it, has it twice, or the span is not a plain object (as ``values(of:in:)``).
    package func value(ofKey key: some Collection<UInt8>, in span: Range<Int>) -> Range<Int>? {
        var found: Range<Int>?
        let plain = forEachMember(of: span) { name, value in
            guard bytes[name].elementsEqual(key) else { return true }
            guard found == nil else { return false }
            found = value
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

    /// Whether the value at `span` is strict JSON (RFC 8259) throughout: every string closed with
    /// no control character and only valid escapes, every number and literal well formed, every
    /// bracket matched, nesting at most 64 deep (deeper values are left to `JSONDecoder`). UTF-8
    /// is checked where strings are read.
    package func isStrictlyValid(_ span: Range<Int>) -> Bool {
        enum Expect { case value, valueOrClose, key, keyOrClose, separatorOrClose }
        var expect = Expect.value
        var index = span.lowerBound
        var open = OpenBrackets()
        let end = span.upperBound
        guard end <= bytes.count else { return false }
        while true {
            while index < end, bytes[index].isJSONWhitespace { index += 1 }
            switch expect {
            case .value, .valueOrClose:
                guard index < end else { return false }
                let byte = bytes[index]
                if expect == .valueOrClose, byte == UInt8(ascii: "]") {
                    _ = open.close()
                    index += 1
                    expect = .separatorOrClose
                    continue
                }
                switch byte {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    guard open.open(object: byte == UInt8(ascii: "{")) else { return false }
                    index += 1
                    expect = byte == UInt8(ascii: "{") ? .keyOrClose : .valueOrClose
                    continue
                case UInt8(ascii: "\""):
                    guard strictString(&index, end) else { return false }
                case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                    let literal: StaticString = byte == UInt8(ascii: "t") ? "true" : byte == UInt8(ascii: "f") ? "false" : "null"
                    let count = literal.utf8CodeUnitCount
                    guard index + count <= end,
                        bytes[index..<(index + count)].elementsEqual(UnsafeBufferPointer(start: literal.utf8Start, count: count))
                    else { return false }
                    index += count
                default:
                    guard strictNumber(&index, end) else { return false }
                }
                expect = .separatorOrClose
            case .key, .keyOrClose:
                guard index < end else { return false }
                if expect == .keyOrClose, bytes[index] == UInt8(ascii: "}") {
                    _ = open.close()
                    index += 1
                    expect = .separatorOrClose
                    continue
                }
                guard bytes[index] == UInt8(ascii: "\""), strictString(&index, end) else { return false }
                while index < end, bytes[index].isJSONWhitespace { index += 1 }
                guard index < end, bytes[index] == UInt8(ascii: ":") else { return false }
                index += 1
                expect = .value
            case .separatorOrClose:
                guard let inObject = open.innermostIsObject else { return index == end }
                guard index < end else { return false }
                switch bytes[index] {
                case UInt8(ascii: ","): expect = inObject ? .key : .value
                case UInt8(ascii: "}") where inObject, UInt8(ascii: "]") where !inObject: _ = open.close()
                default: return false
                }
                index += 1
            }
        }
    }

    /// Moves past the strict JSON string starting at `index` (its opening quote).
    private func strictString(_ index: inout Int, _ end: Int) -> Bool {
        index += 1
        while index < end {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return true
            }
            if byte < 0x20 { return false }
            if byte == UInt8(ascii: "\\") {
                guard index + 1 < end else { return false }
                switch bytes[index + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
                    UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 2
                case UInt8(ascii: "u"):
                    guard index + 6 <= end, bytes[(index + 2)..<(index + 6)].allSatisfy({ $0.isHexDigit }) else { return false }
                    index += 6
                default: return false
                }
                continue
            }
            index += 1
        }
        return false
    }

    /// Moves past the strict JSON number starting at `index`.
    private func strictNumber(_ index: inout Int, _ end: Int) -> Bool {
        func digits() -> Int {
            let start = index
            while index < end, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
            return index - start
        }
        if index < end, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let start = index
        let whole = digits()
        guard whole > 0, whole == 1 || bytes[start] != UInt8(ascii: "0") else { return false }
        if index < end, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return false }
        }
        if index < end, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < end, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return false }
        }
        return true
    }

    /// Calls `visit` with each member's key (its bytes, without the quotes) and value range;
    /// `false` when the span is not a plain object or `visit` says to stop.
    func forEachMember(of span: Range<Int>, _ visit: (Range<Int>, Range<Int>) -> Bool) -> Bool {
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
    func forEachElement(of span: Range<Int>, _ visit: (Range<Int>) -> Bool) -> Bool {
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

    func skipWhitespace(from start: Int) -> Int {
        var index = start
        while index < bytes.count, bytes[index].isJSONWhitespace { index += 1 }
        return index
    }

    /// Moves past the string that starts at `index` (at its opening quote).
    func skipString(_ index: inout Int) -> Bool {
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
    func skipValue(_ index: inout Int) -> Bool {
        guard index < bytes.count else { return false }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            return skipString(&index)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            // Brackets must match in kind.
            var open = OpenBrackets()
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    guard skipString(&index) else { return false }
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    guard open.open(object: bytes[index] == UInt8(ascii: "{")) else { return false }
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    guard open.close() == (bytes[index] == UInt8(ascii: "}")) else { return false }
                    if open.innermostIsObject == nil {
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

/// The brackets open at a point of a JSON text, innermost last, 64 at most: one bit per bracket,
/// set for an object.
private struct OpenBrackets {
    private var objects: UInt64 = 0
    private var depth = 0

    /// Opens an object or an array; `false` when 64 are open already.
    mutating func open(object: Bool) -> Bool {
        guard depth < 64 else { return false }
        if object { objects |= 1 << depth } else { objects &= ~(1 << depth) }
        depth += 1
        return true
    }

    /// Closes the innermost bracket and says whether it was an object's; `nil` when none is open.
    mutating func close() -> Bool? {
        guard let object = innermostIsObject else { return nil }
        depth -= 1
        return object
    }

    /// Whether the innermost open bracket is an object's; `nil` when none is open.
    var innermostIsObject: Bool? { depth == 0 ? nil : objects & (1 << (depth - 1)) != 0 }
}

extension UInt8 {
    fileprivate var isJSONWhitespace: Bool { self == 0x20 || self == 0x0A || self == 0x0D || self == 0x09 }

    fileprivate var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
