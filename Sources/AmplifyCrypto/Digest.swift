import COpenSSL

/// SHA-256 looked up once. OpenSSL 3's one-shot `SHA256()` fetches the algorithm from its provider
/// on every call: a third of the 1.3 µs of a 1 KB token's digest (the verified-token cache's key).
/// `nonisolated(unsafe)`: set once here and never written again; a fetched `EVP_MD` is immutable and
/// OpenSSL allows sharing it between threads.
private nonisolated(unsafe) let fetchedSHA256: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil)

/// The SHA-256 digest of `count` bytes at `bytes` into the 32 bytes at `digest`.
private func oneShotSHA256(_ bytes: UnsafeRawPointer?, _ count: Int, into digest: UnsafeMutablePointer<UInt8>?) {
    if let fetchedSHA256, EVP_Digest(bytes, count, digest, nil, fetchedSHA256, nil) == 1 { return }
    _ = SHA256(bytes?.assumingMemoryBound(to: UInt8.self), count, digest)
}

/// SHA-256 (and SHA-1 for the WebSocket handshake), HMAC (SHA-1, SHA-256, SHA-512), secure random bytes and constant-time comparison, on OpenSSL.
public enum Digest {
    /// The SHA-256 digest of `data` (32 bytes).
    public static func sha256<Bytes: Collection<UInt8>>(_ data: Bytes) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        let input = Array(data)
        input.withUnsafeBufferPointer { buffer in
            oneShotSHA256(buffer.baseAddress, buffer.count, into: &output)
        }
        return output
    }

    /// The first 16 bytes of the SHA-256 digest of `text`'s UTF-8, as two integers: no
    /// allocation for a native string (a cache key for tokens: 128 bits leave collisions out of reach).
    public static func sha256Prefix128(_ text: String) -> (UInt64, UInt64) {
        var text = text
        return text.withUTF8 { bytes in
            var output: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            withUnsafeMutableBytes(of: &output) { digest in
                oneShotSHA256(bytes.baseAddress, bytes.count, into: digest.baseAddress?.assumingMemoryBound(to: UInt8.self))
            }
            return (output.0, output.1)
        }
    }

    /// The SHA-1 digest of `data` (20 bytes). Only for protocols that require it (the
    /// WebSocket handshake's `Sec-WebSocket-Accept`); never for security.
    public static func sha1<Bytes: Collection<UInt8>>(_ data: Bytes) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 20)
        let input = Array(data)
        input.withUnsafeBufferPointer { buffer in
            _ = SHA1(buffer.baseAddress, buffer.count, &output)
        }
        return output
    }

    /// HMAC-SHA256 of `data` with `key` (32 bytes).
    public static func hmacSHA256<Key: Collection<UInt8>, Bytes: Collection<UInt8>>(key: Key, _ data: Bytes) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 32
        let keyBytes = Array(key)
        let input = Array(data)
        keyBytes.withUnsafeBufferPointer { keyBuffer in
            input.withUnsafeBufferPointer { inputBuffer in
                _ = HMAC(EVP_sha256(), keyBuffer.baseAddress, Int32(keyBuffer.count), inputBuffer.baseAddress, inputBuffer.count, &output, &length)
            }
        }
        return output
    }

    /// The hash functions ``hmac(_:key:_:)`` takes.
    public enum HMACHash: Sendable, Equatable {
        /// SHA-1 (20 bytes): only where a protocol requires it, as RFC 6238's default TOTP does.
        case sha1
        /// SHA-256 (32 bytes).
        case sha256
        /// SHA-512 (64 bytes).
        case sha512
    }

    /// HMAC of `data` with `key` under `hash`, through OpenSSL's `HMAC`.
    public static func hmac<Key: Collection<UInt8>, Bytes: Collection<UInt8>>(_ hash: HMACHash, key: Key, _ data: Bytes) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 64
        let keyBytes = Array(key)
        let input = Array(data)
        let md =
            switch hash {
            case .sha1: EVP_sha1()
            case .sha256: EVP_sha256()
            case .sha512: EVP_sha512()
            }
        keyBytes.withUnsafeBufferPointer { keyBuffer in
            input.withUnsafeBufferPointer { inputBuffer in
                _ = HMAC(md, keyBuffer.baseAddress, Int32(keyBuffer.count), inputBuffer.baseAddress, inputBuffer.count, &output, &length)
            }
        }
        return Array(output.prefix(Int(length)))
    }

    /// `count` bytes from OpenSSL's cryptographically secure generator.
    /// - Throws: ``CryptoError`` if the generator is not seeded (it always is on Linux).
    public static func randomBytes(_ count: Int) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count)
        guard count == 0 || RAND_bytes(&output, Int32(count)) == 1 else {
            throw CryptoError("RAND_bytes", openSSLReason())
        }
        return output
    }

    /// Whether `a` and `b` are equal, taking the same time whatever their contents (their
    /// lengths are not secret).
    public static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in CRYPTO_memcmp(left.baseAddress, right.baseAddress, a.count) == 0 }
        }
    }

    /// Lower-case hexadecimal.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
