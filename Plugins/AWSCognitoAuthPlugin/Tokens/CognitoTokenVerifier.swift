import AWSPluginsCore
import Amplify
import AmplifyAuthCore
import AmplifyConcurrency
import AmplifyCrypto
import Foundation

/// Verifies the ID and access tokens a user pool issues, for server code that authenticates
/// requests from the app's users: the RS256 signature against the pool's JWKS, `iss`, `aud`
/// (ID tokens) or `client_id` (access tokens), `token_use`, and `exp` / `nbf` with a clock-skew
/// grace of 0 s unless one is given (`exp == now` has expired), as aws-jwt-verify decides. Tokens
/// with `alg: none`, HS256 (key confusion) or any other algorithm, an unknown key, a tampered
/// payload or another key's signature are refused, and so are claims of the wrong type: `iss`,
/// `sub`, `jti`, `origin_jti`, `token_use`, `client_id`, `scope`, `username`,
/// `cognito:username` and `event_id` must be strings, `aud` a string (or an array of strings),
/// `auth_time` a number, `cognito:groups` and `cognito:roles` arrays of strings.
///
/// Hostile input is refused cheaply: a token over 64 KiB (`JSONWebToken/maximumLength`) before
/// any other work, invalid UTF-8 in the header or claims, any `crit` header (no extension is
/// understood), and `exp` / `nbf` / `iat` that are not finite numbers from 0 to the year 9999.
/// JWKS keys are used only if their exponent is odd and at least 3 (65537 in practice; `e = 1`
/// would let a "signature" without the private key verify) and their modulus has 2048 to 16384
/// bits; other keys are skipped, so tokens naming them are refused as unknown keys.
///
/// The JWKS is fetched on first use and cached; a token naming a key id the cache lacks triggers
/// one refetch (keys rotate), at most once per `refetchInterval`, so forged key ids cannot make
/// the server hammer Cognito. Verifications that arrive while a fetch is under way wait for it
/// (one fetch, however many callers). A fetch that fails is retried after a backoff that starts
/// at `initialRetryDelay` and doubles per failure in a row, up to `refetchInterval`; until then
/// tokens are refused with ``CognitoTokenError/keysUnavailable(_:)``. A JWKS answer over 1 MiB is
/// refused while it downloads (Cognito's are about 1 KiB). Safe from any task.
///
/// A verification with the key cached runs on the caller's executor, taking only the cache's
/// lock (no hop onto this actor and back, which cost more than parsing the token); fetches and
/// their bookkeeping run on the actor.
public actor CognitoTokenVerifier {
    /// Which token a caller expects.
    public enum TokenUse: String, Sendable {
        /// An ID token (`aud` is the app client).
        case id
        /// An access token (`client_id` is the app client).
        case access
    }

    /// A token that passed every check.
    public struct VerifiedToken: Sendable, Equatable {
        /// Every claim.
        public let claims: JSONValue
        /// The user's `sub`.
        public let subject: String
        /// `cognito:username` (ID token) or `username` (access token).
        public let username: String?
        /// When it expires.
        public let expiresAt: Date
        /// The key that signed it.
        public let keyId: String
    }

    private let issuer: String
    private let jwksURL: URL
    private let clientIds: Set<String>
    private let leeway: TimeInterval
    private let refetchInterval: TimeInterval
    private let http: HTTPClient
    private let now: @Sendable () -> Date
    private let initialRetryDelay: TimeInterval
    /// The cached keys: written on the actor when a fetch succeeds, read by verifications from
    /// any executor.
    private let keys = Locked<[String: RSAKey]>([:])
    /// No new fetch starts before this time (set when a fetch ends: the refetch interval after a
    /// success, the backoff after a failure).
    private var nextFetchAllowed: Date?
    /// Failed fetches in a row, and the last one's error (cleared by a success).
    private var failuresInARow = 0
    private var lastFailure: CognitoTokenError?
    private var fetching: Task<Void, Never>?
    /// How many times the JWKS was fetched (for diagnostics and tests).
    public private(set) var fetchCount = 0

    /// A verifier for tokens of `issuer` (`https://cognito-idp.<region>.amazonaws.com/<poolId>`,
    /// or a stand-in's) signed by the keys at `jwksURL`, issued to one of `clientIds`.
    /// - Parameters:
    ///   - issuer: the `iss` every token must carry.
    ///   - jwksURL: where the pool publishes its signing keys.
    ///   - clientIds: the app clients a token may be issued to (`aud` or `client_id`).
    ///   - http: the HTTP client the keys are fetched with.
    ///   - leeway: clock skew allowed for `exp` and `nbf`, aws-jwt-verify's `graceSeconds`
    ///     (default 0; a negative or non-finite value is taken as 0).
    ///   - refetchInterval: the least time between two JWKS fetches (default 60 s).
    ///   - initialRetryDelay: how long after a failed fetch the next may start (default 1 s);
    ///     it doubles with each failure in a row, up to `refetchInterval`.
    ///   - now: the clock (tests pass their own).
    public init(
        issuer: String, jwksURL: URL, clientIds: [String], http: HTTPClient, leeway: TimeInterval = 0,
        refetchInterval: TimeInterval = 60, initialRetryDelay: TimeInterval = 1, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.initialRetryDelay = initialRetryDelay
        self.issuer = issuer
        self.jwksURL = jwksURL
        self.clientIds = Set(clientIds)
        self.leeway = leeway.isFinite ? max(0, leeway) : 0
        self.refetchInterval = refetchInterval
        self.http = http
        self.now = now
    }

    /// Checks `token` as a `use` token and returns its claims. Runs on the caller's executor;
    /// only a key missing from the cache takes it onto the actor (to fetch the keys).
    /// - Throws: ``CognitoTokenError`` saying which check failed.
    public nonisolated(nonsending) func verify(_ token: String, as use: TokenUse) async throws -> VerifiedToken {
        guard token.utf8.count <= JSONWebToken.maximumLength else { throw CognitoTokenError.tooLarge(token.utf8.count) }
        let parsed: JSONWebToken
        do {
            parsed = try JSONWebToken(parsing: token)
        } catch {
            throw CognitoTokenError.malformed
        }
        let algorithm = parsed.header["alg"]?.stringValue ?? "(none)"
        guard algorithm == "RS256" else { throw CognitoTokenError.unsupportedAlgorithm(algorithm) }
        guard parsed.header["crit"] == nil else { throw CognitoTokenError.criticalHeader }
        guard let keyId = parsed.header["kid"]?.stringValue else { throw CognitoTokenError.unknownKey("(no kid)") }
        let key: RSAKey
        if let cached = keys.withLock({ $0[keyId] }) {
            key = cached
        } else {
            key = try await self.key(for: keyId)
        }
        var signingInput = parsed.signingInput
        guard signingInput.withUTF8({ key.verify(signature: parsed.signature, of: UnsafeRawBufferPointer($0)) }) else {
            throw CognitoTokenError.badSignature
        }

        let claims = parsed.claims
        try Self.checkClaimTypes(claims)
        guard claims["iss"]?.stringValue == issuer else { throw CognitoTokenError.wrongIssuer(claims["iss"]?.stringValue) }
        guard claims["token_use"]?.stringValue == use.rawValue else { throw CognitoTokenError.wrongTokenUse(claims["token_use"]?.stringValue) }
        let audience = use == .id ? claims["aud"]?.stringValue : claims["client_id"]?.stringValue
        guard let audience, clientIds.contains(audience) else { throw CognitoTokenError.wrongAudience(audience) }
        let current = now().timeIntervalSince1970
        let expiry = try Self.time("exp", of: parsed)
        let notBefore = try Self.time("nbf", of: parsed)
        _ = try Self.time("iat", of: parsed)
        guard let expiry else { throw CognitoTokenError.expired }
        guard current < expiry + leeway else { throw CognitoTokenError.expired }
        if let notBefore, current + leeway < notBefore { throw CognitoTokenError.notYetValid }
        guard let subject = claims["sub"]?.stringValue else { throw CognitoTokenError.missingClaim("sub") }
        return VerifiedToken(
            claims: claims, subject: subject,
            username: use == .id ? claims["cognito:username"]?.stringValue : claims["username"]?.stringValue,
            expiresAt: Date(timeIntervalSince1970: expiry), keyId: keyId)
    }

    /// The claims that must be strings, arrays of strings or numbers when present.
    private static let stringClaims = [
        "iss", "sub", "jti", "origin_jti", "token_use", "client_id", "scope", "username", "cognito:username", "event_id",
    ]
    private static let stringListClaims = ["cognito:groups", "cognito:roles"]

    /// Refuses a registered or Cognito claim of the wrong type (a `scope` that is a number, a
    /// `jti` that is an object): a check that compares it would read it as absent otherwise.
    private nonisolated static func checkClaimTypes(_ claims: JSONValue) throws(CognitoTokenError) {
        for name in stringClaims where claims[name] != nil && claims[name]?.stringValue == nil {
            throw CognitoTokenError.malformedClaim(name)
        }
        for name in stringListClaims {
            guard let value = claims[name] else { continue }
            guard let list = value.asArray, list.allSatisfy({ $0.stringValue != nil }) else { throw CognitoTokenError.malformedClaim(name) }
        }
        if let audience = claims["aud"], audience.stringValue == nil {
            guard let list = audience.asArray, list.allSatisfy({ $0.stringValue != nil }) else { throw CognitoTokenError.malformedClaim("aud") }
        }
        if let authTime = claims["auth_time"], authTime.doubleValue == nil { throw CognitoTokenError.malformedClaim("auth_time") }
    }

    private nonisolated static func time(_ name: String, of token: JSONWebToken) throws(CognitoTokenError) -> Double? {
        do {
            return try token.time(name)
        } catch {
            throw CognitoTokenError.invalidClaim(name)
        }
    }

    /// The key `keyId`: from the cache, else after the fetch under way, else after a new fetch
    /// when the last one is old enough (or its backoff has passed).
    private func key(for keyId: String) async throws -> RSAKey {
        if let key = keys.withLock({ $0[keyId] }) { return key }
        if fetching == nil, let nextFetchAllowed, now() < nextFetchAllowed {
            throw lastFailure ?? CognitoTokenError.unknownKey(keyId)
        }
        await fetchKeys()
        if let key = keys.withLock({ $0[keyId] }) { return key }
        throw lastFailure ?? CognitoTokenError.unknownKey(keyId)
    }

    /// Joins the fetch under way, or starts one. The fetch updates the cache and the backoff
    /// itself, on this actor, before it ends: whoever awaits it sees the outcome.
    private func fetchKeys() async {
        if let fetching { return await fetching.value }
        let task = Task { await self.performFetch() }
        fetching = task
        await task.value
    }

    private func performFetch() async {
        fetchCount += 1
        do {
            let fetched = try await Self.download(jwksURL, http: http)
            keys.withLock { $0 = fetched }
            failuresInARow = 0
            lastFailure = nil
            nextFetchAllowed = now().addingTimeInterval(refetchInterval)
        } catch {
            failuresInARow += 1
            lastFailure = error as? CognitoTokenError ?? .keysUnavailable("\(error)")
            nextFetchAllowed = now().addingTimeInterval(retryDelay(after: failuresInARow))
        }
        fetching = nil
    }

    /// `initialRetryDelay` doubled per earlier failure in a row, at most `refetchInterval`.
    private func retryDelay(after failures: Int) -> TimeInterval {
        let doubled = initialRetryDelay * pow(2, Double(min(max(failures - 1, 0), 30)))
        return min(refetchInterval, doubled)
    }

    /// The largest JWKS answer read (Cognito's hold two keys, about 1 KiB).
    static let maximumJWKSBytes: Int64 = 1 << 20

    private static func download(_ url: URL, http: HTTPClient) async throws -> [String: RSAKey] {
        let response: HTTPResponse
        do {
            var request = HTTPRequest(method: "GET", url: url, timeout: .seconds(10))
            request.maximumResponseBytes = maximumJWKSBytes
            response = try await http.send(request)
        } catch {
            throw CognitoTokenError.keysUnavailable("\(url.absoluteString) could not be fetched: \(error)")
        }
        guard response.status == 200 else {
            throw CognitoTokenError.keysUnavailable("\(url.absoluteString) answered HTTP \(response.status)")
        }
        guard let document = try? JSONDecoder().decode(JSONValue.self, from: Data(response.body)), let list = document["keys"]?.asArray else {
            throw CognitoTokenError.keysUnavailable("\(url.absoluteString) is not a JWKS document")
        }
        return parse(list)
    }

    /// The usable RS256 signing keys of a JWKS `keys` array (others are skipped).
    package static func parse(_ list: [JSONValue]) -> [String: RSAKey] {
        var parsed: [String: RSAKey] = [:]
        for entry in list {
            guard entry["kty"]?.stringValue == "RSA", let kid = entry["kid"]?.stringValue,
                entry["alg"]?.stringValue.map({ $0 == "RS256" }) ?? true, entry["use"]?.stringValue.map({ $0 == "sig" }) ?? true,
                let n = entry["n"]?.stringValue.flatMap(Base64URL.decode), let e = entry["e"]?.stringValue.flatMap(Base64URL.decode),
                let key = try? RSAKey(modulus: n, exponent: e)
            else { continue }
            parsed[kid] = key
        }
        return parsed
    }
}

/// Why ``CognitoTokenVerifier`` refused a token.
public enum CognitoTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not three base64url parts of JSON.
    case malformed
    /// The header names an algorithm other than RS256 (`none`, `HS256`, ...).
    case unsupportedAlgorithm(String)
    /// No key of the pool has this id (after a refetch, or within the refetch interval).
    case unknownKey(String)
    /// The signature does not verify with the named key.
    case badSignature
    /// `exp` has passed (beyond the leeway), or is missing.
    case expired
    /// `nbf` is still ahead.
    case notYetValid
    /// `iss` is not the pool's.
    case wrongIssuer(String?)
    /// `aud` / `client_id` is not one of the app clients.
    case wrongAudience(String?)
    /// `token_use` is not the expected one.
    case wrongTokenUse(String?)
    /// A required claim is missing.
    case missingClaim(String)
    /// The JWKS could not be fetched or read.
    case keysUnavailable(String)
    /// The token is longer than `JSONWebToken/maximumLength` (64 KiB); its length in bytes.
    case tooLarge(Int)
    /// The header has `crit` (critical extensions); none is understood, so none is accepted.
    case criticalHeader
    /// A time claim (`exp`, `nbf`, `iat`) is not a finite number of seconds from 0 to the year 9999.
    case invalidClaim(String)
    /// A claim is not of its type (a `scope` that is not a string, `cognito:groups` that is not
    /// an array of strings).
    case malformedClaim(String)

    /// A sentence for logs and 401 answers.
    public var description: String {
        switch self {
        case .malformed: "the token is not a well-formed JWT"
        case .unsupportedAlgorithm(let alg): "the token's algorithm '\(PrintableText(alg))' is not accepted (only RS256)"
        case .unknownKey(let kid): "no signing key '\(PrintableText(kid))' is published by the user pool"
        case .badSignature: "the token's signature does not verify"
        case .expired: "the token has expired"
        case .notYetValid: "the token is not valid yet"
        case .wrongIssuer(let iss): "the token was issued by '\(PrintableText(iss ?? "nobody"))', not this user pool"
        case .wrongAudience(let aud): "the token was issued to '\(PrintableText(aud ?? "nobody"))', not this app client"
        case .wrongTokenUse(let use): "the token is an '\(PrintableText(use ?? "unknown"))' token"
        case .missingClaim(let claim): "the token has no '\(claim)' claim"
        case .keysUnavailable(let why): "the user pool's keys are unavailable: \(why)"
        case .tooLarge(let length): "the token is \(length) bytes, more than the \(JSONWebToken.maximumLength) accepted"
        case .criticalHeader: "the token's header has 'crit' (critical extensions), and none is accepted"
        case .invalidClaim(let claim): "the token's '\(claim)' claim is not a valid time"
        case .malformedClaim(let claim): "the token's '\(PrintableText(claim))' claim is not of its type"
        }
    }
}

extension AWSCognitoAuthPlugin {
    /// A verifier for this pool's tokens (issuer, JWKS URL and app client from the configuration),
    /// on the plugin's HTTP client.
    /// - Throws: `AuthError.configuration(_:_:_:)` before `configure`, or when the
    ///   configuration has no user pool.
    /// - Parameters:
    ///   - leeway: clock skew allowed for `exp` and `nbf` (default 0, as aws-jwt-verify's
    ///     `graceSeconds`).
    ///   - refetchInterval: the least time between two JWKS fetches.
    public func tokenVerifier(leeway: TimeInterval = 0, refetchInterval: TimeInterval = 60) throws -> CognitoTokenVerifier {
        let (engine, http) = try configured()
        let settings = engine.configuration
        guard settings.hasUserPool else {
            throw AuthError.configuration(
                "This configuration has no user pool (only an identity pool), so there are no user pool tokens to verify.",
                "Add CognitoUserPool.Default (PoolId, AppClientId, Region) to the awsCognitoAuthPlugin block.")
        }
        var clients = [settings.appClientId]
        if let hosted = settings.oauth?.appClientId, hosted != settings.appClientId { clients.append(hosted) }
        return CognitoTokenVerifier(
            issuer: settings.tokenIssuer, jwksURL: settings.jwksURL, clientIds: clients, http: http, leeway: leeway, refetchInterval: refetchInterval)
    }
}
