extension String {
    /// Whether the two are the same text when ASCII letters are compared without case: how HTTP
    /// compares header names (RFC 9110 §5.1), without making lowercased copies.
    package func equalsIgnoringASCIICase(_ other: String) -> Bool {
        utf8.count == other.utf8.count
            && utf8.elementsEqual(other.utf8) { left, right in
                left == right || (left | 0x20 == right | 0x20 && (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(left | 0x20))
            }
    }
}
