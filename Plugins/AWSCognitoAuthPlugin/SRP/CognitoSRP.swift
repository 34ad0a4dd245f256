import AmplifyCrypto
import Foundation

/// Cognito's USER_SRP_AUTH client side: SRP-6a over the 3072-bit group of RFC 5054 (g = 2) with
/// SHA-256, as Cognito and every Amplify library compute it, on OpenSSL's BIGNUM.
///
/// ``start()`` makes the ephemeral pair (`a`, `A`) for `InitiateAuth`; `passwordClaim(...)`
/// answers the `PASSWORD_VERIFIER` challenge. Proven against the independent known-answer
/// vectors in the tests (`Vectors/srp_vectors.py`).
public enum CognitoSRP {
    /// The group's prime N (RFC 5054, 3072 bits; RFC 3526 group 15).
    static let primeHex =
        "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
        + "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
        + "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F"
        + "83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B"
        + "E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510"
        + "15728E5A8AAAC42DAD33170D04507A33A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7"
        + "ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864D87602733EC86A64521F2B18177B200C"
        + "BBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF"

    /// The client's ephemeral values for one sign-in.
    public struct Ephemeral: Sendable, Equatable {
        /// The private value `a` (big-endian bytes); never leaves the process.
        public let privateValue: [UInt8]
        /// `A = g^a mod N` in hexadecimal, sent as `SRP_A`.
        public let publicValueHex: String
    }

    /// Every value of one claim computation, for tests and diagnostics.
    public struct Claim: Sendable, Equatable {
        /// `k = H(pad(N) | pad(g))`, hexadecimal.
        public let k: String
        /// `u = H(pad(A) | pad(B))`, hexadecimal.
        public let u: String
        /// `x = H(pad(salt) | H(poolName | userId | ":" | password))`, hexadecimal.
        public let x: String
        /// The shared secret `S`, hexadecimal.
        public let sharedSecret: String
        /// The 16-byte HKDF key, hexadecimal.
        public let key: String
        /// `PASSWORD_CLAIM_SIGNATURE` (base64).
        public let signature: String
    }

    /// A fresh ephemeral pair from 128 random bytes (`A mod N` is never zero).
    /// - Throws: `CryptoError` if the random generator or the maths fail.
    public static func start() throws -> Ephemeral {
        try start(privateValue: Digest.randomBytes(128))
    }

    /// The ephemeral pair for a given private value (for known-answer tests).
    /// - Throws: `CryptoError` when `privateValue` makes `A mod N` zero, or the maths fail.
    public static func start(privateValue: [UInt8]) throws -> Ephemeral {
        let group = try Group()
        let a = try BigNumber(bytes: privateValue)
        let publicValue = try group.g.power(a, modulo: group.n)
        guard !publicValue.isZero else { throw CryptoError("SRP", "the private value gives A mod N = 0; pick another") }
        return Ephemeral(privateValue: privateValue, publicValueHex: publicValue.description)
    }

    /// The `PASSWORD_VERIFIER` answer: the claim signature and its intermediates.
    ///
    /// - Parameters:
    ///   - poolId: the user pool id (`us-east-1_AbCdEfGhI`); the part after `_` is hashed.
    ///   - userIdForSRP: the challenge's `USER_ID_FOR_SRP` (not the alias the user typed).
    ///   - password: the user's password (used here only, never sent).
    ///   - ephemeral: the client's ephemeral pair from ``start()``.
    ///   - saltHex: the challenge's `SALT` (hexadecimal).
    ///   - serverPublicHex: the challenge's `SRP_B` (hexadecimal).
    ///   - secretBlock: the challenge's `SECRET_BLOCK` (base64; characters outside the alphabet
    ///     are ignored, as Python's decoder and the local stand-in's UUIDs need).
    ///   - timestamp: ``timestamp(_:)`` of now, sent as `TIMESTAMP`.
    /// - Throws: `CryptoError` for a malformed pool id, salt, B or secret block, for
    ///   `B mod N = 0` or `u = 0` (a hostile or broken server), or if the maths fail.
    public static func passwordClaim(
        poolId: String, userIdForSRP: String, password: String, ephemeral: Ephemeral,
        saltHex: String, serverPublicHex: String, secretBlock: String, timestamp: String
    ) throws -> Claim {
        guard let underscore = poolId.firstIndex(of: "_"), poolId.index(after: underscore) < poolId.endIndex else {
            throw CryptoError("SRP", "the pool id '\(poolId)' has no '_' followed by the pool's name")
        }
        let poolName = String(poolId[poolId.index(after: underscore)...])
        guard let block = lenientBase64(secretBlock) else {
            throw CryptoError("SRP", "the challenge's SECRET_BLOCK is not base64")
        }
        let group = try Group()
        let a = try BigNumber(bytes: ephemeral.privateValue)
        let publicValue = try BigNumber(hex: ephemeral.publicValueHex)
        let salt = try BigNumber(hex: saltHex)
        let serverPublic = try BigNumber(hex: serverPublicHex)
        guard try !serverPublic.modulo(group.n).isZero else { throw CryptoError("SRP", "the server's B is 0 mod N; refusing the challenge") }

        let u = try BigNumber(bytes: Digest.sha256(padded(publicValue) + padded(serverPublic)))
        guard !u.isZero else { throw CryptoError("SRP", "u = H(A | B) is 0; refusing the challenge") }
        let inner = Digest.sha256(Array((poolName + userIdForSRP + ":" + password).utf8))
        let x = try BigNumber(bytes: Digest.sha256(padded(salt) + inner))
        // S = (B - k·g^x) ^ (a + u·x) mod N
        let base = try serverPublic.subtracting(group.k.multiplying(group.g.power(x, modulo: group.n), modulo: group.n), modulo: group.n)
        let exponent = try a.adding(u.multiplying(x))
        let sharedSecret = try base.power(exponent, modulo: group.n)
        let key = try HKDF.sha256(key: padded(sharedSecret), salt: padded(u), info: Array("Caldera Derived Key".utf8), length: 16)
        let message = Array(poolName.utf8) + Array(userIdForSRP.utf8) + block + Array(timestamp.utf8)
        let signature = Data(Digest.hmacSHA256(key: key, message)).base64EncodedString()
        return Claim(
            k: group.k.description, u: u.description, x: x.description, sharedSecret: sharedSecret.description,
            key: Digest.hex(key), signature: signature)
    }

    /// `date` as Cognito wants `TIMESTAMP`: `EEE MMM d HH:mm:ss 'UTC' yyyy` in English, UTC,
    /// day without padding (`Tue Dec 1 09:05:07 UTC 2026`).
    public static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekdays[Int(parts.tm_wday)]) \(months[Int(parts.tm_mon)]) \(parts.tm_mday) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) UTC \(parts.tm_year + 1900)"
    }

    /// The number's big-endian bytes with a leading zero byte when the top bit is set (one zero
    /// byte for zero): the "padHex" every Cognito client hashes.
    static func padded(_ number: BigNumber) -> [UInt8] {
        let bytes = number.bytes
        guard let first = bytes.first, first & 0x80 == 0 else { return [0] + bytes }
        return bytes
    }

    /// Base64 ignoring characters outside the alphabet and missing padding; nil when what is
    /// left cannot be base64 (a length of 1 mod 4).
    static func lenientBase64(_ text: String) -> [UInt8]? {
        var kept = text.unicodeScalars.filter { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "+" || scalar == "/")
        }.map(Character.init)
        guard kept.count % 4 != 1 else { return nil }
        while kept.count % 4 != 0 { kept.append("=") }
        return Data(base64Encoded: String(kept)).map { Array($0) }
    }

    /// N's bytes and k = H(pad(N) | pad(g)), computed once (plain bytes, so they can be shared).
    private static let constants: (prime: [UInt8], multiplier: [UInt8])? = {
        guard let n = try? BigNumber(hex: primeHex), let g = try? BigNumber(2) else { return nil }
        return (n.bytes, Digest.sha256(padded(n) + padded(g)))
    }()

    /// N, g and k as numbers for one computation.
    struct Group {
        let n: BigNumber
        let g: BigNumber
        let k: BigNumber

        init() throws {
            guard let constants = CognitoSRP.constants else { throw CryptoError("SRP", "the group's constants could not be made") }
            n = try BigNumber(bytes: constants.prime)
            g = try BigNumber(2)
            k = try BigNumber(bytes: constants.multiplier)
        }
    }
}
