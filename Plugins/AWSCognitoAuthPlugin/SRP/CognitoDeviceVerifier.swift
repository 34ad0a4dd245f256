import AmplifyCrypto
import Foundation

/// The device secret a client registers with `ConfirmDevice` when Cognito tracks a new device
/// (the sign-in's `NewDeviceMetadata`): an SRP verifier over the same group as the user's, with
/// the device group key and device key in place of the pool name and user. Proven against
/// `Vectors/device_vectors.py`.
public struct CognitoDeviceVerifier: Sendable, Equatable {
    /// The device's random password (base64 of 40 random bytes); kept by the client only.
    public let password: String
    /// `PasswordVerifier`: base64 of pad(g^x mod N).
    public let passwordVerifier: String
    /// `Salt`: base64 of pad(salt).
    public let salt: String

    /// A verifier for a fresh random password and 16-byte salt.
    /// - Throws: `CryptoError` if the random generator or the maths fail.
    public static func make(deviceGroupKey: String, deviceKey: String) throws -> CognitoDeviceVerifier {
        try make(
            deviceGroupKey: deviceGroupKey, deviceKey: deviceKey,
            password: Data(try Digest.randomBytes(40)).base64EncodedString(), salt: try Digest.randomBytes(16))
    }

    /// The verifier for a given password and salt (for known-answer tests):
    /// `x = H(pad(salt) | H(deviceGroupKey | deviceKey | ":" | password))`, verifier `g^x mod N`.
    /// - Throws: `CryptoError` if the maths fail.
    public static func make(deviceGroupKey: String, deviceKey: String, password: String, salt: [UInt8]) throws -> CognitoDeviceVerifier {
        let group = try CognitoSRP.Group()
        let saltNumber = try BigNumber(bytes: salt)
        let inner = Digest.sha256(Array((deviceGroupKey + deviceKey + ":" + password).utf8))
        let x = try BigNumber(bytes: Digest.sha256(CognitoSRP.padded(saltNumber) + inner))
        let verifier = try group.g.power(x, modulo: group.n)
        return CognitoDeviceVerifier(
            password: password, passwordVerifier: Data(CognitoSRP.padded(verifier)).base64EncodedString(),
            salt: Data(CognitoSRP.padded(saltNumber)).base64EncodedString())
    }
}

extension CognitoSRP {
    /// The `DEVICE_PASSWORD_VERIFIER` answer of a `DEVICE_SRP_AUTH` sign-in: the password claim
    /// with the device group key in place of the pool name and the device key in place of the
    /// user, the device's password (``CognitoDeviceVerifier/password``) as the password.
    /// - Throws: `CryptoError` as ``passwordClaim(poolId:userIdForSRP:password:ephemeral:saltHex:serverPublicHex:secretBlock:timestamp:)``.
    public static func deviceClaim(
        deviceGroupKey: String, deviceKey: String, devicePassword: String, ephemeral: Ephemeral,
        saltHex: String, serverPublicHex: String, secretBlock: String, timestamp: String
    ) throws -> Claim {
        // The pool id's part after its first "_" is what the claim hashes as the pool's name.
        try passwordClaim(
            poolId: "device_" + deviceGroupKey, userIdForSRP: deviceKey, password: devicePassword, ephemeral: ephemeral,
            saltHex: saltHex, serverPublicHex: serverPublicHex, secretBlock: secretBlock, timestamp: timestamp)
    }
}
