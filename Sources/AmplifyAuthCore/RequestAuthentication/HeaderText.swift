/// Byte-level reading of header text. HTTP's separators (space, tab, `;`, `=`) are ASCII, so the
/// credentials of every request are split on their UTF-8 bytes: Foundation's Unicode-aware
/// `trimmingCharacters(in:)` and `Character` scans of a 1 KB token cost more CPU than the rest of a
/// cached request together (HTTPServerBenchmark).
extension Substring {
    /// The text without the spaces and horizontal tabs (RFC 9110's OWS) at either end.
    func trimmingOWS() -> Substring {
        let bytes = utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, Self.isOWS(bytes[start]) { start = bytes.index(after: start) }
        while end > start {
            let last = bytes.index(before: end)
            guard Self.isOWS(bytes[last]) else { break }
            end = last
        }
        return self[start..<end]
    }

    /// Whether the text begins with `prefix` (ASCII letters compared without case).
    func hasASCIIPrefix(caseInsensitive prefix: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        guard utf8.count >= expected.count else { return false }
        return zip(utf8, expected).allSatisfy { Self.lowercased($0) == Self.lowercased($1) }
    }

    /// Whether `byte` is a space or a horizontal tab.
    static func isOWS(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
