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
