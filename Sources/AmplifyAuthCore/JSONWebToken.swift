import Amplify
import AmplifyCrypto
import Foundation

/// A JSON Web Token (RFC 7519) signed with ES256: compact serialization, claims as `JSONValue`.
public struct JSONWebToken: Sendable, Equatable {
    /// The protected header (`alg`, `kid`, `typ`).
    public let header: JSONValue
    /// The claims (`iss`, `sub`, `aud`, `exp`, `iat`, `jti`, `token_use`, ...).
    public let claims: JSONValue
    /// `base64url(header).base64url(claims)`: what the signature covers.
    public let signingInput: String
    /// The signature (`r || s` for ES256).
    public let signature: [UInt8]

    /// Why a token is not acceptable.
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        /// Not three base64url parts of JSON.
        case malformed
        /// The header names an algorithm other than ES256 (`none`, `HS256`, ...).
        case unsupportedAlgorithm(String)
        /// The signature does not verify with the key.
        case badSignature
        /// `exp` has passed.
        case expired
        /// A claim does not have the expected value.
        case wrongClaim(String)

        /// A sentence for logs and errors.
        public var description: String {
            switch self {
            case .malformed: "the token is not a well-formed JWT"
            case .unsupportedAlgorithm(let alg): "the token's algorithm '\(alg)' is not accepted (only ES256)"
            case .badSignature: "the token's signature does not verify"
            case .expired: "the token has expired"
            case .wrongClaim(let claim): "the token's '\(claim)' claim is not the expected one"
            }
        }
    }

    /// Signs `claims` with `key` (ES256), naming the key `keyId` in the header.
    /// - Throws: `CryptoError` if signing fails.
    public static func sign(claims: JSONValue, key: ES256Key, keyId: String) throws -> String {
        let header: JSONValue = ["alg": "ES256", "typ": "JWT", "kid": .string(keyId)]
        let signingInput = try encode(header) + "." + encode(claims)
        let signature = try key.sign(Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Parses a compact token without verifying it.
    /// - Throws: ``Problem/malformed``.
    public init(parsing token: String) throws(Problem) {
        // Byte-level: splitting by Character would run grapheme breaking over the whole token.
        let bytes = Array(token.utf8)
        let dots = bytes.indices.filter { bytes[$0] == UInt8(ascii: ".") }
        guard dots.count == 2 else { throw Problem.malformed }
        let decoded = bytes.withUnsafeBufferPointer { buffer -> (header: [UInt8], claims: [UInt8], signature: [UInt8])? in
            guard let header = Base64URL.decode(bytes: UnsafeBufferPointer(rebasing: buffer[0..<dots[0]])),
                  let claims = Base64URL.decode(bytes: UnsafeBufferPointer(rebasing: buffer[(dots[0] + 1)..<dots[1]])),
                  let signature = Base64URL.decode(bytes: UnsafeBufferPointer(rebasing: buffer[(dots[1] + 1)...]))
            else { return nil }
            return (header, claims, signature)
        }
        guard let decoded, let header = try? JSONValue(parsing: decoded.header), let claims = try? JSONValue(parsing: decoded.claims),
              header.asObject != nil, claims.asObject != nil
        else { throw Problem.malformed }
        self.header = header
        self.claims = claims
        self.signingInput = String(decoding: bytes[0..<dots[1]], as: UTF8.self)
        self.signature = decoded.signature
    }

    /// Parses `token` and checks its algorithm, signature and expiry against `key` and `now`
    /// (with `leeway` seconds of clock skew).
    /// - Throws: ``Problem``.
    public static func verify(_ token: String, key: ES256Key, now: Date = Date(), leeway: TimeInterval = 0) throws(Problem) -> JSONWebToken {
        let parsed = try JSONWebToken(parsing: token)
        let algorithm = parsed.header["alg"]?.stringValue ?? "(none)"
        guard algorithm == "ES256" else { throw Problem.unsupportedAlgorithm(algorithm) }
        guard key.verify(signature: parsed.signature, of: Array(parsed.signingInput.utf8)) else { throw Problem.badSignature }
        guard let expiry = parsed.claims["exp"]?.doubleValue else { throw Problem.wrongClaim("exp") }
        guard now.timeIntervalSince1970 < expiry + leeway else { throw Problem.expired }
        return parsed
    }

    /// The string claim `name`.
    public func string(_ name: String) -> String? { claims[name]?.stringValue }

    /// The `exp` claim as a date.
    public var expiresAt: Date? { claims["exp"]?.doubleValue.map { Date(timeIntervalSince1970: $0) } }

    private static func encode(_ value: JSONValue) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Base64URL.encode(try encoder.encode(value))
    }
}
