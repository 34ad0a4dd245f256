import Amplify
import Foundation

/// What an HTTP request brings for authentication, taken from its head by a framework adapter.
public struct RequestCredentials: Sendable {
    /// Every `Authorization` header value.
    public var authorization: [String]
    /// Every `Cookie` header value (HTTP/2 sends several).
    public var cookies: [String]
    /// The `Host` (or HTTP/2 `:authority`), for choosing a tenant.
    public var host: String?
    /// The request's path, for choosing a tenant.
    public var path: String

    /// The credentials of one request.
    public init(authorization: [String], cookies: [String], host: String? = nil, path: String = "/") {
        self.authorization = authorization
        self.cookies = cookies
        self.host = host
        self.path = path
    }
}

/// A request let through by ``AmplifyAuthenticator``: the server context its handler runs in, and
/// the user (`nil` when it brought no credentials: public routes and sign-in run in an empty context).
public struct AuthenticatedRequest: Sendable {
    /// The context the handler runs in (``AuthServerContext/run(isolation:_:)``): `Amplify.Auth`
    /// calls in it act as ``user``.
    public let context: AuthServerContext
    /// The verified user, or `nil` for a request without credentials.
    public let user: AuthenticatedUser?
    let cookieAttributes: AmplifyJSCookies.Attributes

    /// The `Set-Cookie` values the response must carry: new tokens after a refresh or a sign-in in
    /// the context, deletions after a sign-out; none when nothing changed.
    public func responseCookies() async -> [String] {
        await context.responseCookies(cookieAttributes)
    }
}

/// Turns a request's credentials into a verified user and the server context its handler runs
/// in — the framework-free core of `AmplifyHummingbird` and `AmplifyVapor`.
///
/// - **Credentials.** A `Bearer` token in `Authorization` wins; otherwise Amplify JS's cookies;
///   otherwise the request is anonymous (an empty context, no user). Other schemes (`Basic`) are
///   left to other middleware.
/// - **Verification** is the plugin's (Cognito's JWKS rules or the local pool's), each verified
///   result kept in a ``VerifiedTokenCache`` (pass `nil` to verify every request).
/// - **Refusals** are ``AuthChallenge``s by RFC 6750: 400 for malformed credentials, 401 for bad
///   tokens, 503 when the pool's keys are unreachable; never a 500 for a token.
/// - **Tenants.** One plugin, or a function choosing one per request (by host or path).
///
/// Safe to share between all requests and threads.
public final class AmplifyAuthenticator: Sendable {
    /// Chooses the pool for a request from its host and path (`nil`: none serves it, answered 500).
    public typealias TenantSelector = @Sendable (_ host: String?, _ path: String) -> (any AuthServerContextPlugin)?

    private let select: TenantSelector
    /// The verified-token cache (`nil`: every request is verified).
    public let cache: VerifiedTokenCache?
    /// The attributes of the cookies written back (`HttpOnly`, `Secure`, `SameSite`, `Domain`, …).
    public let cookieAttributes: AmplifyJSCookies.Attributes
    /// The realm named in `WWW-Authenticate`.
    public let realm: String

    /// Authenticates against one pool's plugin.
    public convenience init(
        plugin: any AuthServerContextPlugin, cache: VerifiedTokenCache? = VerifiedTokenCache(),
        cookieAttributes: AmplifyJSCookies.Attributes = .init(),
        realm: String = "amplify"
    ) {
        self.init(tenants: { _, _ in plugin }, cache: cache, cookieAttributes: cookieAttributes, realm: realm)
    }

    /// Authenticates against the pool `tenants` chooses for each request (several pools in one
    /// server, by host or by path). One cache serves them all: its entries are bound to their pool.
    public init(
        tenants: @escaping TenantSelector, cache: VerifiedTokenCache? = VerifiedTokenCache(), cookieAttributes: AmplifyJSCookies.Attributes = .init(),
        realm: String = "amplify"
    ) {
        select = tenants
        self.cache = cache
        self.cookieAttributes = cookieAttributes
        self.realm = realm
    }

    /// The verified user of `credentials` and the context to run the request in.
    /// - Throws: ``AuthChallenge`` saying why the request is refused (no context is made).
    public func authenticate(_ credentials: RequestCredentials) async throws(AuthChallenge) -> AuthenticatedRequest {
        guard let plugin = select(credentials.host, credentials.path) else {
            throw AuthChallenge(status: 500, code: nil, message: "No user pool serves this request.", realm: realm)
        }
        let tenant: AuthTenant
        let tokens: AuthRequestTokens?
        do {
            tenant = try plugin.contextTenant()
            tokens = try requestTokens(credentials, clientId: tenant.clientId)
        } catch {
            throw challenge(for: error)
        }
        guard let tokens else {
            do {
                return AuthenticatedRequest(context: try plugin.emptyServerContext(), user: nil, cookieAttributes: cookieAttributes)
            } catch {
                throw challenge(for: error)
            }
        }
        let revocations = plugin.revocations.current
        let key = cache.map { _ in VerifiedTokenCache.Key(accessToken: tokens.accessToken, idToken: tokens.idToken) }
        if let cache, let key, let entry = cache.lookup(key, tenant: tenant, revocations: revocations) {
            guard tokens.username == nil || tokens.username == entry.username else { throw mismatchedCookies(tokens, entry.username) }
            let session = StoredSession(
                username: entry.username, userId: entry.sub, idToken: tokens.idToken ?? "", accessToken: tokens.accessToken,
                refreshToken: tokens.refreshToken ?? "", accessTokenExpiresAt: Date(timeIntervalSince1970: entry.expiresAt),
                refreshTokenExpiresAt: nil)
            return AuthenticatedRequest(
                context: try await context(plugin, session, refreshed: false),
                user: AuthenticatedUser(entry: entry, tenant: tenant, accessToken: tokens.accessToken), cookieAttributes: cookieAttributes)
        }
        let verified: VerifiedRequest
        do {
            verified = try await plugin.verifiedRequest(tokens)
        } catch {
            throw challenge(for: error)
        }
        let session = verified.session
        guard tokens.username == nil || tokens.username == session.username else { throw mismatchedCookies(tokens, session.username) }
        let refreshed = session.accessToken != tokens.accessToken
        let entry = AuthenticatedUser.entry(
            accessClaims: verified.accessClaims, username: session.username, sub: session.userId, expiresAt: verified.expiresAt)
        if let cache, let key, !refreshed {
            cache.insert(entry, for: key, tenant: tenant, revocations: revocations)
        }
        return AuthenticatedRequest(
            context: try await context(plugin, session, refreshed: refreshed),
            user: AuthenticatedUser(entry: entry, tenant: tenant, accessToken: session.accessToken), cookieAttributes: cookieAttributes)
    }

    private func context(_ plugin: any AuthServerContextPlugin, _ session: StoredSession, refreshed: Bool) async throws(AuthChallenge)
        -> AuthServerContext
    {
        do {
            return try await plugin.serverContext(verified: session, refreshed: refreshed)
        } catch {
            throw challenge(for: error)
        }
    }

    /// The tokens of a bearer header, else of the pool's cookies; `nil` for none.
    private func requestTokens(_ credentials: RequestCredentials, clientId: String) throws -> AuthRequestTokens? {
        let bearers = credentials.authorization.filter { Substring($0).trimmingOWS().hasASCIIPrefix(caseInsensitive: "bearer") }
        guard bearers.count <= 1, credentials.authorization.count <= 1 || bearers.isEmpty else {
            throw AmplifyJSCookies.CookieError.malformed("The request has more than one Authorization header.")
        }
        if let bearer = bearers.first { return try AuthRequestTokens(authorization: bearer) }
        guard !credentials.cookies.isEmpty else { return nil }
        return try AmplifyJSCookies.tokens(in: credentials.cookies, clientId: clientId)
    }

    private func mismatchedCookies(_ tokens: AuthRequestTokens, _ owner: String) -> AuthChallenge {
        AuthChallenge(
            status: 401, code: .invalidToken,
            message:
                "The cookies name '\(PrintableText(tokens.username ?? "", limit: 80))' as the user, and their tokens belong to '\(PrintableText(owner, limit: 80))'. Sign in again.",
            realm: realm)
    }

    /// The answer for an error of the plugin or the cookie parser.
    func challenge(for error: any Error) -> AuthChallenge {
        switch error {
        case let error as AuthChallenge:
            return error
        case let error as AmplifyJSCookies.CookieError:
            return AuthChallenge(status: 400, code: .invalidRequest, message: error.errorDescription, realm: realm)
        case let error as AuthError:
            switch error {
            case .notAuthorized, .sessionExpired, .signedOut, .validation, .invalidState:
                return AuthChallenge(status: 401, code: .invalidToken, message: error.errorDescription, realm: realm)
            case .service, .unknown:
                return AuthChallenge(
                    status: 503, code: nil, message: "The token cannot be checked now: the user pool is unreachable. Try again shortly.",
                    retryAfter: 5,
                    realm: realm)
            case .configuration:
                return AuthChallenge(status: 500, code: nil, message: "The server's user pool is not configured.", realm: realm)
            }
        default:
            return AuthChallenge(
                status: 503, code: nil, message: "The token cannot be checked now: the user pool is unreachable. Try again shortly.", retryAfter: 5,
                realm: realm)
        }
    }
}
