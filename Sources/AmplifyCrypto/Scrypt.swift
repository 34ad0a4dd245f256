import COpenSSL

/// Password hashing with scrypt (RFC 7914), on OpenSSL's `EVP_PBE_scrypt`.
public struct Scrypt: Sendable, Equatable {
    /// CPU/memory cost (a power of two).
    public let n: UInt64
    /// Block size.
    public let r: UInt64
    /// Parallelism.
    public let p: UInt64
    /// Length of the derived key in bytes.
    public let keyLength: Int

    /// Parameters; the defaults (N = 2^15, r = 8, p = 1, 32 bytes) take about 50 ms and 32 MiB.
    public init(n: UInt64 = 1 << 15, r: UInt64 = 8, p: UInt64 = 1, keyLength: Int = 32) {
        self.n = n
        self.r = r
        self.p = p
        self.keyLength = keyLength
    }

    /// `128·r·N·p + 128·r·p + 1 MiB`, the memory limit given to OpenSSL; `nil` if it overflows.
    static func memoryBound(n: UInt64, r: UInt64, p: UInt64) -> UInt64? {
        var total: UInt64 = 128
        for factor in [r, n, p] {
            let (product, overflow) = total.multipliedReportingOverflow(by: factor)
            guard !overflow else { return nil }
            total = product
        }
        let (rp, overflowRP) = (128 as UInt64).multipliedReportingOverflow(by: r)
        let (rpp, overflowRPP) = rp.multipliedReportingOverflow(by: p)
        let (sum, overflowSum) = total.addingReportingOverflow(rpp)
        let (bound, overflowBound) = sum.addingReportingOverflow(1 << 20)
        guard !overflowRP, !overflowRPP, !overflowSum, !overflowBound else { return nil }
        return bound
    }

    /// Derives a key from `password` and `salt`.
    /// - Throws: ``CryptoError`` if OpenSSL rejects the parameters, or if their memory need
    ///   overflows 64 bits.
    public func derive(password: [UInt8], salt: [UInt8]) throws -> [UInt8] {
        var key = [UInt8](repeating: 0, count: keyLength)
        guard let memory = Self.memoryBound(n: n, r: r, p: p) else {
            throw CryptoError("scrypt", "N = \(n), r = \(r), p = \(p) need more memory than can be counted")
        }
        let ok = password.withUnsafeBufferPointer { passwordBuffer in
            salt.withUnsafeBufferPointer { saltBuffer in
                passwordBuffer.withMemoryRebound(to: CChar.self) { passwordChars in
                    EVP_PBE_scrypt(
                        passwordChars.baseAddress, passwordChars.count, saltBuffer.baseAddress, saltBuffer.count,
                        n, r, p, memory, &key, key.count)
                }
            }
        }
        guard ok == 1 else { throw CryptoError("scrypt", openSSLReason()) }
        return key
    }
}
