import COpenSSL

/// OpenSSL's raw RSA-2048 PKCS#1 v1.5 verify of one signature over a SHA-256 digest, on one
/// prepared context: the floor any JWT verifier is measured against.
package final class RawRSAVerify {
    private let key: OpaquePointer
    private let context: OpaquePointer
    private let signature: [UInt8]
    private let digest: [UInt8]

    /// A context for the public key (`modulus`, `exponent`, big-endian) and `signature` over
    /// `signedBytes` (digested once here).
    /// - Throws: ``BenchmarkError`` when OpenSSL refuses the key or the context.
    package init(modulus: [UInt8], exponent: [UInt8], signature: [UInt8], signedBytes: [UInt8]) throws {
        guard
            let key = modulus.withUnsafeBufferPointer({ n in
                exponent.withUnsafeBufferPointer { e in c_openssl_rsa_public_key(n.baseAddress, Int32(n.count), e.baseAddress, Int32(e.count)) }
            })
        else { throw BenchmarkError("OpenSSL refused the public key") }
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
            EVP_PKEY_free(key)
            throw BenchmarkError("EVP_PKEY_CTX_new_from_pkey failed")
        }
        self.key = key
        self.context = context
        guard EVP_PKEY_verify_init(context) == 1, EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1,
            EVP_PKEY_CTX_set_signature_md(context, EVP_sha256()) == 1
        else { throw BenchmarkError("preparing the verify context failed") }
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        guard EVP_Digest(signedBytes, signedBytes.count, &digest, &length, EVP_sha256(), nil) == 1 else { throw BenchmarkError("EVP_Digest failed") }
        self.digest = digest
        self.signature = signature
    }

    deinit {
        EVP_PKEY_CTX_free(context)
        EVP_PKEY_free(key)
    }

    /// Verifies the signature `count` times and returns the CPU seconds per verify.
    /// - Throws: ``BenchmarkError`` when a verify fails.
    package func secondsPerVerify(_ count: Int) throws -> Double {
        let start = cpuSeconds()
        for _ in 0..<count {
            guard EVP_PKEY_verify(context, signature, signature.count, digest, digest.count) == 1 else { throw BenchmarkError("raw verify failed") }
        }
        return (cpuSeconds() - start) / Double(count)
    }
}
