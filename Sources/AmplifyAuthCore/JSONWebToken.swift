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
        /// `nbf` is still ahead.
        case notYetValid
        /// A claim does not have the expected value.
        case wrongClaim(String)
        /// The token is longer than ``JSONWebToken/maximumLength`` bytes (its length).
        case tooLarge(Int)
        /// The header has `crit`: it names extensions that must be understood, and none is.
        case criticalHeader
        /// A time claim (`exp`, `nbf`, `iat`) is not a number of seconds from 0 to
        /// ``JSONWebToken/latestTime``.
        case malformedClaim(String)

        /// A sentence for logs and errors.
        public var description: String {
            switch self {
            case .malformed: "the token is not a well-formed JWT"
            case .unsupportedAlgorithm(let alg): "the token's algorithm '\(PrintableText(alg))' is not accepted (only ES256)"
            case .badSignature: "the token's signature does not verify"
            case .expired: "the token has expired"
            case .notYetValid: "the token is not valid yet"
            case .wrongClaim(let claim): "the token's '\(claim)' claim is not the expected one"
            case .tooLarge(let length): "the token is \(length) bytes, more than the \(JSONWebToken.maximumLength) accepted"
            case .criticalHeader: "the token's header has 'crit' (critical extensions), and none is accepted"
            case .malformedClaim(let claim): "the token's '\(claim)' claim is not a valid time"
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

    /// The longest token accepted, in bytes: checked before any other work (an unbounded one
    /// costs time and memory to decode). Sized from Cognito's limits, so that no token it issues
    /// is refused: a user may be in 100 groups with names of up to 128 characters, which the ID
    /// and access tokens both list (`cognito:groups`: about 13 KB of JSON, 17.5 KB once
    /// base64url-encoded), beside the standard attributes, custom ones and what a pre-token-
    /// generation trigger adds. 64 KiB holds that with room; a token near it no longer fits a
    /// browser's 4 KiB cookie, only a header.
    public static let maximumLength = 64 * 1024

    /// The latest time claim accepted, 9999-12-31T23:59:59Z: anything later (or `1e999`, which
    /// JSON parsers read as infinity) is not a time.
    public static let latestTime: Double = 253_402_300_799

    /// Parses a compact token without verifying it: at most ``maximumLength`` bytes, three
    /// base64url parts, header and claims JSON objects in valid UTF-8.
    /// - Throws: ``Problem/tooLarge(_:)`` or ``Problem/malformed``.
    public init(parsing token: String) throws(Problem) {
        guard token.utf8.count <= Self.maximumLength else { throw Problem.tooLarge(token.utf8.count) }
        // Byte-level, on the string's own UTF-8: splitting by Character would run grapheme
        // breaking over the whole token, and copying it into an array costs an allocation.
        var token = token
        let parts = token.withUTF8 { bytes -> (header: [UInt8], claims: [UInt8], signature: [UInt8], signingInput: String)? in
            guard let first = bytes.firstIndex(of: UInt8(ascii: ".")),
                let second = bytes[(first + 1)...].firstIndex(of: UInt8(ascii: ".")),
                !bytes[(second + 1)...].contains(UInt8(ascii: "."))
            else { return nil }
            guard let header = Base64URL.decode(bytes: UnsafeBufferPointer(rebasing: bytes[0..<first])),
                let claims = Base64URL.decode(bytes: UnsafeBufferPointer(rebasing: bytes[(first + 1)..<second])),
                let signature = Base64URL.decode(bytes: UnsafeBufferPointer(rebasing: bytes[(second + 1)...]))
            else { return nil }
            return (header, claims, signature, String(decoding: UnsafeBufferPointer(rebasing: bytes[0..<second]), as: UTF8.self))
        }
        guard let parts, String(validating: parts.header, as: UTF8.self) != nil, String(validating: parts.claims, as: UTF8.self) != nil,
            let header = try? JSONValue(parsing: parts.header), let claims = try? JSONValue(parsing: parts.claims),
            header.asObject != nil, claims.asObject != nil
        else { throw Problem.malformed }
        self.header = header
        self.claims = claims
        self.signingInput = parts.signingInput
        self.signature = parts.signature
    }

    /// Parses `token` and checks its algorithm, key id, signature, expiry and not-before time
    /// against `key` and `now` (with `leeway` seconds of clock skew; `exp == now` has expired, as
    /// aws-jwt-verify decides).
    /// - Parameters:
    ///   - token: the compact token.
    ///   - key: the public (or private) key it must be signed with; only low-S signatures pass.
    ///   - keyId: the `kid` the header must name (`nil`: not checked).
    ///   - now: the time `exp` and `nbf` are checked against.
    ///   - leeway: seconds of clock skew allowed on `exp` and `nbf`.
    /// - Throws: ``Problem`` (``Problem/expired`` only after every other check passed: an expired
    ///   token is genuine).
    public static func verify(
        _ token: String, key: ES256Key, keyId: String? = nil, now: Date = Date(), leeway: TimeInterval = 0
    ) throws(Problem) -> JSONWebToken {
        let parsed = try JSONWebToken(parsing: token)
        let algorithm = parsed.header["alg"]?.stringValue ?? "(none)"
        guard algorithm == "ES256" else { throw Problem.unsupportedAlgorithm(algorithm) }
        guard parsed.header["crit"] == nil else { throw Problem.criticalHeader }
        if let keyId, parsed.header["kid"]?.stringValue != keyId { throw Problem.wrongClaim("kid") }
        // Low-S only: the tokens this package signs are, and a token has then one valid signature.
        guard key.verify(signature: parsed.signature, of: Array(parsed.signingInput.utf8), lowSOnly: true) else { throw Problem.badSignature }
        guard let expiry = try parsed.time("exp") else { throw Problem.wrongClaim("exp") }
        let notBefore = try parsed.time("nbf")
        _ = try parsed.time("iat")
        if let notBefore, now.timeIntervalSince1970 + leeway < notBefore { throw Problem.notYetValid }
        guard now.timeIntervalSince1970 < expiry + leeway else { throw Problem.expired }
        return parsed
    }

    /// The time claim `name` (a NumericDate, seconds since 1970), or `nil` if it is absent.
    /// - Throws: ``Problem/malformedClaim(_:)`` when it is present but not a finite number from
    ///   0 to ``latestTime`` (a string, an object, `1e999`, a date beyond the year 9999).
    public func time(_ name: String) throws(Problem) -> Double? {
        guard let value = claims[name] else { return nil }
        guard let seconds = value.doubleValue, seconds.isFinite, (0...Self.latestTime).contains(seconds) else {
            throw Problem.malformedClaim(name)
        }
        return seconds
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
