import Amplify

/// Why a request was not let through, as an HTTP answer by RFC 6750 (bearer tokens): the status,
/// the `WWW-Authenticate` challenge and a message safe to show the client.
///
/// - 400 `invalid_request`: malformed credentials (a bad `Authorization` header, two of them,
///   hostile or duplicated Amplify cookies).
/// - 401 with no error code: no credentials at all (RFC 6750 §3.1).
/// - 401 `invalid_token`: a token that is forged, expired, revoked, of another pool or client.
/// - 403 `insufficient_scope`: a valid user without the group or scope a route needs.
/// - 503: the token cannot be checked now (the pool's keys are unreachable); `Retry-After` says when to try again.
/// - 500: the server is misconfigured (no pool serves the request).
///
/// ``message`` never holds a token or a key: it says which check failed, in the verifier's words.
public struct AuthChallenge: Error, Sendable, Equatable, CustomStringConvertible {
    /// RFC 6750's error codes.
    public enum Code: String, Sendable, Equatable {
        /// The request's credentials are malformed (400).
        case invalidRequest = "invalid_request"
        /// The token is not valid (401).
        case invalidToken = "invalid_token"
        /// The token is valid and does not grant enough (403).
        case insufficientScope = "insufficient_scope"
    }

    /// The HTTP status.
    public let status: Int
    /// The RFC 6750 error code (none for missing credentials, 500 and 503).
    public let code: Code?
    /// What went wrong, safe to send (no token, no key).
    public let message: String
    /// The scope a 403 needs (`scope="…"` in the challenge).
    public let scope: String?
    /// Seconds after which to try again (503 only).
    public let retryAfter: Int?
    /// The realm named in the challenge.
    public let realm: String

    /// A challenge. `message` is made safe for a header (quotes, backslashes and control
    /// characters replaced, at most 300 characters).
    public init(status: Int, code: Code?, message: String, scope: String? = nil, retryAfter: Int? = nil, realm: String = "amplify") {
        self.status = status
        self.code = code
        self.message = Self.headerSafe(message, limit: 300)
        self.scope = scope.map { Self.headerSafe($0, limit: 200) }
        self.retryAfter = retryAfter
        self.realm = Self.headerSafe(realm, limit: 100)
    }

    /// No credentials: 401 with a bare challenge.
    public static func missingCredentials(realm: String = "amplify") -> AuthChallenge {
        AuthChallenge(
            status: 401, code: nil, message: "Sign in first: send 'Authorization: Bearer <access token>' or the Amplify session cookies.",
            realm: realm)
    }

    /// The `WWW-Authenticate` value (`nil` for 500 and 503, which challenge nothing).
    public var wwwAuthenticate: String? {
        guard status == 400 || status == 401 || status == 403 else { return nil }
        var value = "Bearer realm=\"\(realm)\""
        if let code {
            value += ", error=\"\(code.rawValue)\", error_description=\"\(message)\""
        }
        if let scope { value += ", scope=\"\(scope)\"" }
        return value
    }

    /// The response headers: `WWW-Authenticate`, `Retry-After`, `Cache-Control: no-store`.
    public var headers: [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [("Cache-Control", "no-store")]
        if let wwwAuthenticate { headers.append(("WWW-Authenticate", wwwAuthenticate)) }
        if let retryAfter { headers.append(("Retry-After", String(retryAfter))) }
        return headers
    }

    /// The response body: `{"error": code, "message": …}` (JSON).
    public var jsonBody: String {
        let error = code?.rawValue ?? (status == 401 ? "unauthenticated" : status == 503 ? "temporarily_unavailable" : "server_error")
        var bytes = Array(#"{"error":"#.utf8)
        JSONValue.writeString(error, into: &bytes)
        bytes += Array(#","message":"#.utf8)
        JSONValue.writeString(message, into: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `401 invalid_token: …`.
    public var description: String { "\(status) \(code?.rawValue ?? "error"): \(message)" }

    /// Compares every field.
    public static func == (lhs: AuthChallenge, rhs: AuthChallenge) -> Bool {
        lhs.status == rhs.status && lhs.code == rhs.code && lhs.message == rhs.message && lhs.scope == rhs.scope && lhs.retryAfter == rhs.retryAfter
            && lhs.realm == rhs.realm
    }

    /// RFC 6750's quoted-string characters only (%x20-21 / %x23-5B / %x5D-7E): others become `?`,
    /// double quotes `'`.
    static func headerSafe(_ text: String, limit: Int) -> String {
        var result = ""
        for scalar in text.unicodeScalars.prefix(limit) {
            switch scalar.value {
            case 0x22: result.append("'")
            case 0x5C: result.append("/")
            case 0x20...0x7E: result.unicodeScalars.append(scalar)
            default: result.append("?")
            }
        }
        return result
    }
}
