import AmplifyConcurrency
import COpenSSL

/// An RSA key for RS256 JSON Web Signatures (RFC 7518 §3.3: RSASSA-PKCS1-v1_5 with SHA-256),
/// on OpenSSL 3: the algorithm of Cognito's ID and access tokens.
///
/// A public key (from a JWK's `n` and `e`) verifies; a generated private key also signs (for
/// tests, stand-ins and benchmarks). Safe from any thread: every use of the OpenSSL key takes
/// the key's lock, and every verification the lock of the key's prepared verifier.
///
/// Verification runs on a context prepared once per key (PKCS#1 v1.5 padding, SHA-256, the
/// algorithms fetched once): OpenSSL 3's `EVP_DigestVerifyInit` would otherwise look the
/// algorithms up in its provider tables and build a new context for every token.
public final class RSAKey: Sendable {
    private let key: Locked<OwnedPKey>
    private let verifier: Locked<PreparedRS256Verifier?>
    /// Whether the key can sign.
    public let isPrivate: Bool
    /// The modulus's size in bits.
    public let bits: Int

    private init(_ pkey: OpaquePointer, isPrivate: Bool) {
        key = Locked(OwnedPKey(pointer: pkey))
        verifier = Locked(PreparedRS256Verifier(pkey: pkey))
        self.isPrivate = isPrivate
        bits = Int(EVP_PKEY_get_bits(pkey))
    }

    /// A new random private key of `bits` bits (public exponent 65537).
    /// - Throws: ``CryptoError`` if OpenSSL cannot generate one.
    public static func generate(bits: Int = 2048) throws -> RSAKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else { throw CryptoError("RSA key generation", openSSLReason()) }
        defer { EVP_PKEY_CTX_free(context) }
        var pkey: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
            EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)) == 1,
            EVP_PKEY_generate(context, &pkey) == 1, let pkey
        else { throw CryptoError("RSA key generation", openSSLReason()) }
        return RSAKey(pkey, isPrivate: true)
    }

    /// The largest modulus accepted, in bits: a bigger one only makes verification slow.
    public static let maximumModulusBits = 16_384
    /// The largest public exponent accepted, in bits (65537 has 17).
    public static let maximumExponentBits = 64

    /// The public key with JWK members `n` (modulus) and `e` (exponent), big-endian bytes.
    ///
    /// The exponent must be odd and at least 3 (65537 in practice): `e = 1` would make any
    /// "signature" equal to the encoded message verify without the private key, and an even `e`
    /// is not a valid RSA exponent. It may have at most ``maximumExponentBits`` bits and the
    /// modulus from 2048 (RFC 7518 §3.3) to ``maximumModulusBits`` bits, bounding the cost of a
    /// verification with a key from an untrusted JWKS.
    /// - Throws: ``CryptoError`` for a key outside those bounds or values OpenSSL refuses.
    public convenience init(modulus: [UInt8], exponent: [UInt8]) throws {
        let modulusBits = try BigNumber(bytes: modulus).bitCount
        guard modulusBits >= 2048 else { throw CryptoError("reading the RSA public key", "the modulus has fewer than 2048 bits") }
        guard modulusBits <= Self.maximumModulusBits else {
            throw CryptoError("reading the RSA public key", "the modulus has more than \(Self.maximumModulusBits) bits")
        }
        let e = try BigNumber(bytes: exponent)
        guard !e.isZero else { throw CryptoError("reading the RSA public key", "the exponent is zero") }
        guard e.bitCount <= Self.maximumExponentBits else {
            throw CryptoError("reading the RSA public key", "the exponent has more than \(Self.maximumExponentBits) bits")
        }
        let lowByte = e.bytes.last ?? 0
        guard lowByte & 1 == 1, e.bitCount >= 2 else {
            throw CryptoError("reading the RSA public key", "the exponent must be odd and at least 3 (65537 is usual)")
        }
        let made = modulus.withUnsafeBufferPointer { n in
            exponent.withUnsafeBufferPointer { e in
                c_openssl_rsa_public_key(n.baseAddress, Int32(n.count), e.baseAddress, Int32(e.count))
            }
        }
        guard let pkey = made else { throw CryptoError("reading the RSA public key", openSSLReason()) }
        self.init(pkey, isPrivate: false)
    }

    /// The public key's JWK members: modulus `n` and exponent `e`, big-endian bytes.
    /// - Throws: ``CryptoError`` if OpenSSL cannot export them.
    public func publicComponents() throws -> (modulus: [UInt8], exponent: [UInt8]) {
        try key.withLock { owned throws(CryptoError) -> ([UInt8], [UInt8]) in
            var n: OpaquePointer?
            var e: OpaquePointer?
            defer {
                BN_free(n)
                BN_free(e)
            }
            guard EVP_PKEY_get_bn_param(owned.pointer, "n", &n) == 1, EVP_PKEY_get_bn_param(owned.pointer, "e", &e) == 1, let n, let e
            else { throw CryptoError("exporting the RSA public key", openSSLReason()) }
            return (Self.bytes(of: n), Self.bytes(of: e))
        }
    }

    /// Signs `message` with RSASSA-PKCS1-v1_5 and SHA-256 (RS256).
    /// - Throws: ``CryptoError`` for a public key, or if OpenSSL fails.
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        guard isPrivate else { throw CryptoError("RS256 sign", "this is a public key") }
        return try key.withLock { owned throws(CryptoError) -> [UInt8] in
            guard let context = EVP_MD_CTX_new() else { throw CryptoError("RS256 sign", openSSLReason()) }
            defer { EVP_MD_CTX_free(context) }
            guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, owned.pointer) == 1 else { throw CryptoError("RS256 sign", openSSLReason()) }
            var length = 0
            guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else { throw CryptoError("RS256 sign", openSSLReason()) }
            var signature = [UInt8](repeating: 0, count: length)
            guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else { throw CryptoError("RS256 sign", openSSLReason()) }
            return Array(signature.prefix(length))
        }
    }

    /// Whether `signature` is this key's RS256 signature of `message`.
    public func verify(signature: [UInt8], of message: [UInt8]) -> Bool {
        message.withUnsafeBytes { verify(signature: signature, of: $0) }
    }

    /// Whether `signature` is this key's RS256 signature of the bytes of `message` (for callers
    /// that hold the signed bytes in a buffer already, such as a token's UTF-8).
    package func verify(signature: [UInt8], of message: UnsafeRawBufferPointer) -> Bool {
        guard signature.count == (bits + 7) / 8 else { return false }
        return verifier.withLock { prepared -> Bool in
            guard let prepared else { return false }
            return signature.withUnsafeBytes { prepared.verify(signature: $0, message: message) }
        }
    }

    private static func bytes(of number: OpaquePointer) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int((BN_num_bits(number) + 7) / 8))
        if !output.isEmpty { _ = BN_bn2bin(number, &output) }
        return output
    }
}
