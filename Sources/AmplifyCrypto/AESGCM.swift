import COpenSSL

/// AES-256-GCM (NIST SP 800-38D) through OpenSSL: authenticated encryption for data kept where
/// others can read it (a shared store's dump must hold no usable token).
///
/// ``seal(_:key:associatedData:)`` draws a fresh 96-bit nonce for each message and returns
/// `nonce ‖ ciphertext ‖ tag` (12 + n + 16 bytes); ``open(_:key:associatedData:)`` checks the tag
/// before returning anything. `associatedData` is authenticated, not encrypted: bind a record to
/// its name (a session to its user) so that a record moved to another name does not open.
public enum AESGCM {
    /// The key's length in bytes (AES-256).
    public static let keyLength = 32
    /// The nonce's length in bytes.
    public static let nonceLength = 12
    /// The tag's length in bytes.
    public static let tagLength = 16

    /// Encrypts and authenticates `plaintext` under `key` (32 bytes) with a random nonce.
    /// - Returns: `nonce ‖ ciphertext ‖ tag`.
    /// - Throws: ``CryptoError`` for a key of another length, or when OpenSSL fails.
    public static func seal(_ plaintext: [UInt8], key: [UInt8], associatedData: [UInt8] = []) throws -> [UInt8] {
        try seal(plaintext, key: key, nonce: try Digest.randomBytes(nonceLength), associatedData: associatedData)
    }

    /// ``seal(_:key:associatedData:)`` with a given nonce, for known-answer tests only: a nonce
    /// used twice under one key gives the key's authentication away.
    package static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8]) throws -> [UInt8] {
        try checkKey(key, "AES-GCM seal")
        guard nonce.count == nonceLength else { throw CryptoError("AES-GCM seal", "the nonce is \(nonce.count) bytes; \(nonceLength) are needed") }
        let context = try CipherContext("AES-GCM seal")
        var status = EVP_EncryptInit_ex(context.pointer, EVP_aes_256_gcm(), nil, nil, nil)
        status &= EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_SET_IVLEN, Int32(nonceLength), nil)
        status &= key.withUnsafeBufferPointer { key in
            nonce.withUnsafeBufferPointer { nonce in EVP_EncryptInit_ex(context.pointer, nil, nil, key.baseAddress, nonce.baseAddress) }
        }
        guard status == 1 else { throw CryptoError("AES-GCM seal", openSSLReason()) }
        try context.authenticate(associatedData, encrypting: true)
        var output = nonce
        output += try context.update(plaintext, encrypting: true)
        var tag = [UInt8](repeating: 0, count: tagLength)
        var length: Int32 = 0
        var finalBlock = [UInt8](repeating: 0, count: 16)
        guard EVP_EncryptFinal_ex(context.pointer, &finalBlock, &length) == 1,
            EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_GET_TAG, Int32(tagLength), &tag) == 1
        else { throw CryptoError("AES-GCM seal", openSSLReason()) }
        output += finalBlock.prefix(Int(max(0, length)))
        return output + tag
    }

    /// Checks and decrypts what ``seal(_:key:associatedData:)`` made under `key` with the same
    /// `associatedData`.
    /// - Throws: ``CryptoError`` for a key of another length, a sealed box shorter than a nonce
    ///   and a tag, or a tag that does not match (a wrong key, other associated data, or any byte
    ///   changed).
    public static func open(_ sealed: [UInt8], key: [UInt8], associatedData: [UInt8] = []) throws -> [UInt8] {
        try checkKey(key, "AES-GCM open")
        guard sealed.count >= nonceLength + tagLength else {
            throw CryptoError("AES-GCM open", "the sealed box is \(sealed.count) bytes; at least \(nonceLength + tagLength) are needed")
        }
        let nonce = Array(sealed.prefix(nonceLength))
        var tag = Array(sealed.suffix(tagLength))
        let ciphertext = Array(sealed[nonceLength..<(sealed.count - tagLength)])
        let context = try CipherContext("AES-GCM open")
        var status = EVP_DecryptInit_ex(context.pointer, EVP_aes_256_gcm(), nil, nil, nil)
        status &= EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_SET_IVLEN, Int32(nonceLength), nil)
        status &= key.withUnsafeBufferPointer { key in
            nonce.withUnsafeBufferPointer { nonce in EVP_DecryptInit_ex(context.pointer, nil, nil, key.baseAddress, nonce.baseAddress) }
        }
        guard status == 1 else { throw CryptoError("AES-GCM open", openSSLReason()) }
        try context.authenticate(associatedData, encrypting: false)
        let plaintext = try context.update(ciphertext, encrypting: false)
        var length: Int32 = 0
        var finalBlock = [UInt8](repeating: 0, count: 16)
        guard EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_SET_TAG, Int32(tagLength), &tag) == 1,
            EVP_DecryptFinal_ex(context.pointer, &finalBlock, &length) == 1
        else {
            ERR_clear_error()
            throw CryptoError("AES-GCM open", "the tag does not match: a wrong key, other associated data, or changed bytes")
        }
        return plaintext + finalBlock.prefix(Int(max(0, length)))
    }

    private static func checkKey(_ key: [UInt8], _ operation: String) throws {
        guard key.count == keyLength else { throw CryptoError(operation, "the key is \(key.count) bytes; AES-256 needs \(keyLength)") }
    }
}

/// An `EVP_CIPHER_CTX`, freed when it goes.
private final class CipherContext {
    let pointer: OpaquePointer
    private let operation: String

    init(_ operation: String) throws {
        guard let pointer = EVP_CIPHER_CTX_new() else { throw CryptoError(operation, openSSLReason()) }
        self.pointer = pointer
        self.operation = operation
    }

    deinit { EVP_CIPHER_CTX_free(pointer) }

    /// Feeds associated data (authenticated, not encrypted).
    func authenticate(_ data: [UInt8], encrypting: Bool) throws {
        guard !data.isEmpty else { return }
        guard let length = Int32(exactly: data.count) else { throw CryptoError(operation, "the associated data is too long") }
        var ignored: Int32 = 0
        let status = data.withUnsafeBufferPointer { data in
            encrypting
                ? EVP_EncryptUpdate(pointer, nil, &ignored, data.baseAddress, length)
                : EVP_DecryptUpdate(pointer, nil, &ignored, data.baseAddress, length)
        }
        guard status == 1 else { throw CryptoError(operation, openSSLReason()) }
    }

    /// Encrypts or decrypts `input` (GCM is a stream mode: as many bytes out as in).
    func update(_ input: [UInt8], encrypting: Bool) throws -> [UInt8] {
        guard !input.isEmpty else { return [] }
        guard let length = Int32(exactly: input.count) else { throw CryptoError(operation, "the message is too long") }
        var output = [UInt8](repeating: 0, count: input.count + 16)
        var written: Int32 = 0
        let status = input.withUnsafeBufferPointer { input in
            encrypting
                ? EVP_EncryptUpdate(pointer, &output, &written, input.baseAddress, length)
                : EVP_DecryptUpdate(pointer, &output, &written, input.baseAddress, length)
        }
        guard status == 1 else { throw CryptoError(operation, openSSLReason()) }
        return Array(output.prefix(Int(max(0, written))))
    }
}
