import AmplifyConcurrency
import COpenSSL

/// An ECDSA P-256 key for ES256 JSON Web Signatures (RFC 7518 §3.4), on OpenSSL 3.
///
/// A private key signs and verifies; a public key (from a JWK) only verifies. Signatures are the
/// JWS form: `r || s`, 32 bytes each. Safe from any thread: every use of the OpenSSL key takes
/// the key's lock.
public final class ES256Key: Sendable {
    private let key: Locked<OwnedPKey>
    /// Whether the key can sign.
    public let isPrivate: Bool

    private init(_ pkey: OpaquePointer, isPrivate: Bool) {
        key = Locked(OwnedPKey(pointer: pkey))
        self.isPrivate = isPrivate
    }

    /// A new random private key.
    /// - Throws: ``CryptoError`` if OpenSSL cannot generate one.
    public static func generate() throws -> ES256Key {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw CryptoError("P-256 key generation", openSSLReason()) }
        defer { EVP_PKEY_CTX_free(context) }
        var pkey: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
            EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
            EVP_PKEY_generate(context, &pkey) == 1, let pkey
        else { throw CryptoError("P-256 key generation", openSSLReason()) }
        return ES256Key(pkey, isPrivate: true)
    }

    /// The private key in `pem` (PKCS #8, as ``privateKeyPEM()`` writes it).
    /// - Throws: ``CryptoError`` if it is not a P-256 private key.
    public convenience init(privateKeyPEM pem: String) throws {
        let bytes = Array(pem.utf8)
        let pkey: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let pkey else { throw CryptoError("reading the ES256 private key", openSSLReason()) }
        guard Self.isP256(pkey) else {
            EVP_PKEY_free(pkey)
            throw CryptoError("reading the ES256 private key", "the key is not an EC P-256 key")
        }
        self.init(pkey, isPrivate: true)
    }

    /// The public key with JWK coordinates `x` and `y` (32 bytes each).
    /// - Throws: ``CryptoError`` if they are not a point on P-256.
    public convenience init(publicX x: [UInt8], y: [UInt8]) throws {
        guard x.count == 32, y.count == 32 else { throw CryptoError("reading the ES256 public key", "x and y must be 32 bytes each") }
        var point = [UInt8(0x04)] + x + y
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw CryptoError("reading the ES256 public key", openSSLReason()) }
        defer { EVP_PKEY_CTX_free(context) }
        var pkey: OpaquePointer?
        let ok = "P-256".withCString { group -> Bool in
            "group".withCString { groupKey in
                "pub".withCString { pubKey in
                    point.withUnsafeMutableBytes { pointBytes in
                        var parameters = [
                            OSSL_PARAM_construct_utf8_string(groupKey, UnsafeMutablePointer(mutating: group), 0),
                            OSSL_PARAM_construct_octet_string(pubKey, pointBytes.baseAddress, pointBytes.count),
                            OSSL_PARAM_construct_end(),
                        ]
                        return EVP_PKEY_fromdata_init(context) == 1
                            && EVP_PKEY_fromdata(context, &pkey, c_openssl_public_key_selection(), &parameters) == 1
                    }
                }
            }
        }
        guard ok, let pkey else { throw CryptoError("reading the ES256 public key", openSSLReason()) }
        self.init(pkey, isPrivate: false)
    }

    /// The private key as PKCS #8 PEM. Write it only to a file of mode 0600.
    /// - Throws: ``CryptoError`` for a public key, or if OpenSSL fails.
    public func privateKeyPEM() throws -> String {
        guard isPrivate else { throw CryptoError("writing the ES256 private key", "this is a public key") }
        return try key.withLock { owned throws(CryptoError) -> String in
            guard let bio = BIO_new(BIO_s_mem()) else { throw CryptoError("writing the ES256 private key", openSSLReason()) }
            defer { BIO_free(bio) }
            guard PEM_write_bio_PrivateKey(bio, owned.pointer, nil, nil, 0, nil, nil) == 1 else {
                throw CryptoError("writing the ES256 private key", openSSLReason())
            }
            var data: UnsafeMutablePointer<CChar>?
            let length = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &data)
            guard let data, length > 0 else { throw CryptoError("writing the ES256 private key", "empty PEM") }
            return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
        }
    }

    /// The public key's JWK coordinates (32 bytes each).
    /// - Throws: ``CryptoError`` if OpenSSL cannot export them.
    public func publicCoordinates() throws -> (x: [UInt8], y: [UInt8]) {
        try key.withLock { owned throws(CryptoError) -> ([UInt8], [UInt8]) in
            var x: OpaquePointer?
            var y: OpaquePointer?
            defer {
                BN_free(x)
                BN_free(y)
            }
            guard EVP_PKEY_get_bn_param(owned.pointer, "qx", &x) == 1, EVP_PKEY_get_bn_param(owned.pointer, "qy", &y) == 1,
                let x, let y
            else { throw CryptoError("exporting the ES256 public key", openSSLReason()) }
            var xBytes = [UInt8](repeating: 0, count: 32)
            var yBytes = [UInt8](repeating: 0, count: 32)
            guard BN_bn2binpad(x, &xBytes, 32) == 32, BN_bn2binpad(y, &yBytes, 32) == 32 else {
                throw CryptoError("exporting the ES256 public key", openSSLReason())
            }
            return (xBytes, yBytes)
        }
    }

    /// Signs `message` with SHA-256 and ECDSA; returns `r || s` (64 bytes), `s` in its low form
    /// (≤ n/2).
    /// - Throws: ``CryptoError`` for a public key, or if OpenSSL fails.
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        guard isPrivate else { throw CryptoError("ES256 sign", "this is a public key") }
        let der = try key.withLock { owned throws(CryptoError) -> [UInt8] in
            guard let context = EVP_MD_CTX_new() else { throw CryptoError("ES256 sign", openSSLReason()) }
            defer { EVP_MD_CTX_free(context) }
            guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, owned.pointer) == 1 else {
                throw CryptoError("ES256 sign", openSSLReason())
            }
            var length = 0
            guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else { throw CryptoError("ES256 sign", openSSLReason()) }
            var signature = [UInt8](repeating: 0, count: length)
            guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
                throw CryptoError("ES256 sign", openSSLReason())
            }
            return Array(signature.prefix(length))
        }
        return try Self.rawSignature(fromDER: der)
    }

    /// P-256's group order n, big-endian.
    private static let order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
    ]
    /// ⌊n / 2⌋, big-endian: the largest `s` of a low-S signature.
    private static let halfOrder: [UInt8] = [
        0x7F, 0xFF, 0xFF, 0xFF, 0x80, 0x00, 0x00, 0x00, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xDE, 0x73, 0x7D, 0x56, 0xD3, 0x8B, 0xCF, 0x42, 0x79, 0xDC, 0xE5, 0x61, 0x7E, 0x31, 0x92, 0xA8,
    ]

    /// Whether the `s` half of `signature` (`r || s`) is above n/2 (the "high-S" twin of a
    /// signature: `(r, n − s)` verifies as well as `(r, s)`).
    private static func isHighS(_ signature: ArraySlice<UInt8>) -> Bool {
        halfOrder.lexicographicallyPrecedes(signature)
    }

    /// Whether `signature` (`r || s`) is this key's ES256 signature of `message`. With
    /// `lowSOnly`, only the low-S form (`s ≤ n/2`) is accepted, so a message has one valid
    /// signature: its high-S twin, which anyone can make from the genuine one, is refused (this
    /// key's own signatures are always low-S). Without it, both forms verify, as ECDSA defines
    /// (signatures made elsewhere, RFC 7515's examples among them, may be high-S).
    public func verify(signature: [UInt8], of message: [UInt8], lowSOnly: Bool = false) -> Bool {
        guard signature.count == 64, !(lowSOnly && Self.isHighS(signature[32...])), let der = Self.derSignature(fromRaw: signature) else {
            return false
        }
        return key.withLock { owned -> Bool in
            guard let context = EVP_MD_CTX_new() else { return false }
            defer { EVP_MD_CTX_free(context) }
            guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, owned.pointer) == 1 else { return false }
            let ok = EVP_DigestVerify(context, der, der.count, message, message.count) == 1
            ERR_clear_error()
            return ok
        }
    }

    private static func isP256(_ pkey: OpaquePointer) -> Bool {
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(pkey, "group", &name, name.count, &length) == 1 else { return false }
        let group = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return group == "prime256v1" || group == "P-256"
    }

    private static func rawSignature(fromDER der: [UInt8]) throws -> [UInt8] {
        var cursor: UnsafePointer<UInt8>? = nil
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw CryptoError("ES256 sign", "OpenSSL returned a signature it cannot parse") }
        defer { ECDSA_SIG_free(parsed) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(parsed, &r, &s)
        var raw = [UInt8](repeating: 0, count: 64)
        let ok = raw.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return BN_bn2binpad(r, base, 32) == 32 && BN_bn2binpad(s, base + 32, 32) == 32
        }
        guard ok else { throw CryptoError("ES256 sign", openSSLReason()) }
        return isHighS(raw[32...]) ? try lowS(raw) : raw
    }

    /// `raw` (`r || s`) with `s` replaced by `n − s`: the same signature in its low-S form.
    private static func lowS(_ raw: [UInt8]) throws -> [UInt8] {
        guard let n = BN_bin2bn(order, 32, nil) else { throw CryptoError("ES256 sign", openSSLReason()) }
        defer { BN_free(n) }
        guard let s = raw.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress.map { $0 + 32 }, 32, nil) }) else {
            throw CryptoError("ES256 sign", openSSLReason())
        }
        defer { BN_free(s) }
        guard BN_sub(s, n, s) == 1 else { throw CryptoError("ES256 sign", openSSLReason()) }
        var low = raw
        let ok = low.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return BN_bn2binpad(s, base + 32, 32) == 32
        }
        guard ok else { throw CryptoError("ES256 sign", openSSLReason()) }
        return low
    }

    private static func derSignature(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = BN_bin2bn(raw, 32, nil)
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress.map { $0 + 32 }, 32, nil) }
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? der : nil
    }
}
