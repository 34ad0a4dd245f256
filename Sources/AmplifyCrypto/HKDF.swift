/// HKDF with HMAC-SHA256 (RFC 5869).
public enum HKDF {
    /// Derives `length` bytes (at most 255 × 32) from input keying material `key`, `salt` and
    /// `info`: extract `PRK = HMAC(salt, key)`, then expand `T(i) = HMAC(PRK, T(i-1) | info | i)`.
    /// - Throws: ``CryptoError`` when `length` is over 8160 bytes.
    public static func sha256(key: [UInt8], salt: [UInt8], info: [UInt8], length: Int) throws -> [UInt8] {
        guard length >= 0, length <= 255 * 32 else { throw CryptoError("HKDF-SHA256", "at most 8160 bytes can be derived") }
        let pseudoRandomKey = Digest.hmacSHA256(key: salt, key)
        var output: [UInt8] = []
        var block: [UInt8] = []
        var counter: UInt8 = 1
        while output.count < length {
            block = Digest.hmacSHA256(key: pseudoRandomKey, block + info + [counter])
            output += block
            counter &+= 1
        }
        return Array(output.prefix(length))
    }
}
