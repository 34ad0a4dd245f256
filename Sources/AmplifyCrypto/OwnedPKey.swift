import AmplifyConcurrency
import COpenSSL

/// An `EVP_PKEY *` freed with its owner.
final class OwnedPKey: @unchecked Sendable {
    // @unchecked Sendable: ES256Key and RSAKey touch the pointer only inside its Locked's lock.
    let pointer: OpaquePointer

    init(pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { EVP_PKEY_free(pointer) }
}

/// An RS256 verification context prepared once for a key: an `EVP_PKEY_CTX` initialised for
/// verification with PKCS#1 v1.5 padding and SHA-256, an explicitly fetched SHA-256 and a digest
/// context, all reused for every verification (OpenSSL 3 fetches algorithms and builds a context
/// in every `EVP_DigestVerifyInit`). The context holds its own reference to the key.
final class PreparedRS256Verifier: @unchecked Sendable {
    // @unchecked Sendable: RSAKey uses it only inside its Locked's lock (OpenSSL contexts are
    // not safe to share between threads; one at a time is).
    private let context: OpaquePointer
    private let digestContext: OpaquePointer
    private let sha256: OpaquePointer

    /// A verifier for `pkey`, or `nil` if OpenSSL cannot prepare one.
    init?(pkey: OpaquePointer) {
        guard let sha256 = EVP_MD_fetch(nil, "SHA256", nil) else {
            ERR_clear_error()
            return nil
        }
        guard let digestContext = EVP_MD_CTX_new() else {
            EVP_MD_free(sha256)
            return nil
        }
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else {
            EVP_MD_CTX_free(digestContext)
            EVP_MD_free(sha256)
            ERR_clear_error()
            return nil
        }
        guard EVP_PKEY_verify_init(context) == 1, EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1,
            EVP_PKEY_CTX_set_signature_md(context, sha256) == 1
        else {
            EVP_PKEY_CTX_free(context)
            EVP_MD_CTX_free(digestContext)
            EVP_MD_free(sha256)
            ERR_clear_error()
            return nil
        }
        self.context = context
        self.digestContext = digestContext
        self.sha256 = sha256
    }

    deinit {
        EVP_PKEY_CTX_free(context)
        EVP_MD_CTX_free(digestContext)
        EVP_MD_free(sha256)
    }

    /// Whether `signature` is the RS256 signature of `message`: SHA-256 of the message, then the
    /// PKCS#1 v1.5 check on the prepared context (OpenSSL compares in constant time).
    func verify(signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer) -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { digest -> Bool in
            var length: UInt32 = 0
            guard EVP_DigestInit_ex2(digestContext, sha256, nil) == 1,
                EVP_DigestUpdate(digestContext, message.baseAddress, message.count) == 1,
                EVP_DigestFinal_ex(digestContext, digest.baseAddress, &length) == 1, length == 32,
                let signatureBytes = signature.baseAddress?.assumingMemoryBound(to: UInt8.self)
            else {
                ERR_clear_error()
                return false
            }
            let ok = EVP_PKEY_verify(context, signatureBytes, signature.count, digest.baseAddress, 32) == 1
            ERR_clear_error()
            return ok
        }
    }
}
