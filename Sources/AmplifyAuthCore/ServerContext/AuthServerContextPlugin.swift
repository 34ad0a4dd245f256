import Amplify

/// An Auth plugin that serves server contexts: both Auth plugins of this package are. It says
/// which pool it serves, verifies the tokens a request brings, and exchanges refresh tokens; the
/// extension makes contexts from headers and cookies with them.
public protocol AuthServerContextPlugin: AuthEngineBackedPlugin {
    /// The pool the plugin serves (contexts it makes are bound to it).
    /// - Throws: `AuthError.configuration(_:_:_:)` before `configure`.
    func contextTenant() throws -> AuthTenant

    /// The session `tokens` stand for, after checking them with the pool's keys: the access
    /// token's signature, issuer, client, use and expiry, and the ID token's (same `sub`) when
    /// sent. An access token that expired but is otherwise valid is accepted only with a refresh
    /// token, which is exchanged at once (the new session's user must be the token's).
    /// - Throws: `AuthError.notAuthorized(_:_:_:)` with the verifier's reason for a tampered,
    ///   foreign or expired token, `AuthError.sessionExpired(_:_:_:)` when the refresh is refused.
    func verifiedSession(_ tokens: AuthRequestTokens) async throws -> StoredSession

    /// ``verifiedSession(_:)`` with what its checks read: the access token's claims and when the
    /// first of the tokens sent expires. The default parses them from the session's tokens again;
    /// a plugin that has them at hand returns them, and a request's tokens are parsed once.
    /// - Throws: as ``verifiedSession(_:)``.
    func verifiedRequest(_ tokens: AuthRequestTokens) async throws -> VerifiedRequest

    /// The plugin's exchange of a refresh token for a new session (the one its process-wide keeper uses).
    /// - Throws: `AuthError.configuration(_:_:_:)` before `configure`.
    func sessionRefresh() throws -> AuthSessionKeeper.Refresh

    /// Counts the revocations this plugin has seen in this process (sign-outs, global sign-outs,
    /// password resets, deleted users): a ``VerifiedTokenCache`` entry verified before the latest
    /// one is verified again. Read on every request from any thread; must be cheap (an atomic load).
    var revocations: RevocationCounter { get }

    /// Calls `observer` with each revocation this plugin makes (a sign-out, a global sign-out, a
    /// deleted user), so that a fleet shares it. The default observes none (a plugin whose
    /// revocations live in a store every instance reads).
    func observeRevocations(_ observer: @escaping @Sendable (SessionRevocation) -> Void)

    /// Applies a revocation another instance of a fleet made: its tokens are refused here too,
    /// and every ``VerifiedTokenCache`` entry verified before is verified again. The default
    /// bumps ``revocations`` only.
    func applyRevocation(_ revocation: SessionRevocation)
}

/// A request's session after its tokens were checked (``AuthServerContextPlugin/verifiedRequest(_:)``).
public struct VerifiedRequest: Sendable {
    /// The session the tokens stand for (new tokens when an expired access token was refreshed).
    public var session: StoredSession
    /// The claims of the session's access token (groups, scopes, …).
    public var accessClaims: JSONValue
    /// When the first of the session's access and ID tokens expires (seconds since 1970).
    public var expiresAt: Double

    /// A verified request's session, its access token's claims and its tokens' earliest expiry.
    public init(session: StoredSession, accessClaims: JSONValue, expiresAt: Double) {
        self.session = session
        self.accessClaims = accessClaims
        self.expiresAt = expiresAt
    }

    /// `session` with its claims and expiry read from its own tokens (parsed, not verified again).
    public init(parsing session: StoredSession) {
        var expiresAt = session.accessTokenExpiresAt.timeIntervalSince1970
        if !session.idToken.isEmpty, let idExpiry = (try? JSONWebToken(parsing: session.idToken))?.claims["exp"]?.doubleValue {
            expiresAt = min(expiresAt, idExpiry)
        }
        self.init(session: session, accessClaims: (try? JSONWebToken(parsing: session.accessToken))?.claims ?? [:], expiresAt: expiresAt)
    }
}

extension AuthServerContextPlugin {
    /// See ``AuthServerContextPlugin/observeRevocations(_:)``: none.
    public func observeRevocations(_ observer: @escaping @Sendable (SessionRevocation) -> Void) {}

    /// See ``AuthServerContextPlugin/applyRevocation(_:)``: the cache's entries are verified again.
    public func applyRevocation(_ revocation: SessionRevocation) {
        revocations.bumpFromElsewhere()
    }
}

/// Contexts made from what a request brings.
extension AuthServerContextPlugin {
    /// See ``AuthServerContextPlugin/verifiedRequest(_:)``: the verified session, its claims parsed from its tokens.
    public func verifiedRequest(_ tokens: AuthRequestTokens) async throws -> VerifiedRequest {
        VerifiedRequest(parsing: try await verifiedSession(tokens))
    }

    /// A context acting as the user of `tokens`, verified before the context exists.
    /// - Throws: as ``verifiedSession(_:)``; no context is made.
    public func serverContext(tokens: AuthRequestTokens) async throws -> AuthServerContext {
        _ = try contextTenant()
        let session = try await verifiedSession(tokens)
        return try await serverContext(verified: session, refreshed: session.accessToken != tokens.accessToken)
    }

    /// A context from an `Authorization: Bearer <access token>` header value, with the ID and
    /// refresh tokens when the request sends them too.
    /// - Throws: ``AmplifyJSCookies/CookieError`` for a header that is not a bearer token, or as
    ///   ``verifiedSession(_:)``.
    public func serverContext(authorization: String, idToken: String? = nil, refreshToken: String? = nil) async throws -> AuthServerContext {
        try await serverContext(tokens: AuthRequestTokens(authorization: authorization, idToken: idToken, refreshToken: refreshToken))
    }

    /// A context from Amplify JS's cookies in the request's `Cookie` header(s); an empty context
    /// (nobody signed in, ready for a sign-in) when the request has none of this pool's cookies.
    /// - Throws: ``AmplifyJSCookies/CookieError`` for malformed, oversized, duplicated or incomplete
    ///   cookies, or as ``verifiedSession(_:)`` for their tokens (another client's cookies are
    ///   not this pool's and make an empty context).
    public func serverContext(cookieHeaders: [String]) async throws -> AuthServerContext {
        let tenant = try contextTenant()
        guard let tokens = try AmplifyJSCookies.tokens(in: cookieHeaders, clientId: tenant.clientId) else { return try emptyServerContext() }
        let context = try await serverContext(tokens: tokens)
        if let username = tokens.username, context.user?.username != username {
            throw AuthError.notAuthorized(
                "The cookies name '\(PrintableText(username, limit: 80))' as the user, and their tokens belong to '\(PrintableText(context.user?.username ?? "", limit: 80))'.",
                "Sign in again.")
        }
        return context
    }

    /// A context with nobody signed in: a sign-in inside it makes a request session (its tokens
    /// come back in ``AuthServerContext/responseCookies(_:)``), never the process-wide one.
    /// - Throws: `AuthError.configuration(_:_:_:)` before `configure`.
    public func emptyServerContext() throws -> AuthServerContext {
        let holder = AuthContextSession(tenant: try contextTenant(), scope: .request, initial: nil, events: authEvents, refresh: try sessionRefresh())
        return AuthServerContext(plugin: self, session: holder)
    }

    /// A context for a session already verified (by ``verifiedSession(_:)``, or found in a
    /// ``VerifiedTokenCache``); `refreshed` marks its tokens as new for the response's cookies.
    /// - Throws: `AuthError.configuration(_:_:_:)` before `configure`.
    func serverContext(verified session: StoredSession, refreshed: Bool) async throws -> AuthServerContext {
        let holder = AuthContextSession(
            tenant: try contextTenant(), scope: .request, initial: session, events: authEvents, refresh: try sessionRefresh())
        if refreshed { await holder.markChanged() }
        return AuthServerContext(plugin: self, session: holder)
    }

}

extension AuthContextSession {
    /// Marks the tokens as new (renewed while the request's were verified): the response sets them.
    func markChanged() {
        changed = true
    }
}
