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

/// An explicitly fetched `EVP_MD *` (fetching once spares OpenSSL 3's implicit fetch on every
/// signature operation), freed with its owner.
final class OwnedDigest: @unchecked Sendable {
    // @unchecked Sendable: RSAKey reads the pointer under its Locked's lock; the EVP_MD it points
    // to is immutable once fetched, and OpenSSL allows using it from any thread.
    let pointer: OpaquePointer?

    init(name: String) {
        pointer = EVP_MD_fetch(nil, name, nil)
    }

    deinit { EVP_MD_free(pointer) }
}
