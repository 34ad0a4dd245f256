import Amplify
import AmplifyCrypto
import Foundation

/// Sign-in that the server owns, as Amplify JS's `createAuthRouteHandlers` does for Next.js: the
/// routes under ``Configuration/prefix`` (default `/auth`) sign users in, up and out, and keep the
/// tokens in HttpOnly cookies in Amplify JS's names, which ``AmplifyAuthenticator`` (and the
/// Hummingbird and Vapor middleware) read on every later request.
///
/// - **With a hosted UI** (the Cognito plugin with an `OAuth` block, ``HostedUIServerSignIn``):
///   `sign-in` and `sign-up` redirect to its `/oauth2/authorize` (or `/signup`) with PKCE (S256),
///   `state` and a nonce kept in 5-minute HttpOnly cookies (`com.amplify.server_auth.pkce`,
///   `.state`); `sign-in-callback` checks the state, exchanges the code, checks the ID token's
///   nonce and sets the token cookies; `identity_provider` (Google, SignInWithApple, an OIDC or
///   SAML provider's name) passes through.
/// - **Without one** (the embedded local pool): small server-rendered pages — sign-in, sign-up,
///   confirm, forgot-password — with plain HTML forms, no JavaScript, a CSRF token on every form,
///   and fields named `username`, `password`, `email`, `code`.
/// - `sign-out` (a `POST` from a form of the app's own origin) revokes the refresh token, clears the
///   cookies and, with a hosted UI, goes through its `/logout` to `sign-out-callback`.
///
/// Redirect targets come only from the configuration or are paths on the app's origin (no open
/// redirect). A forged or replayed state, a missing verifier, a reused code, a form without its
/// CSRF token or from another origin: each is refused with a page and a 4xx, no token cookie set,
/// no session made, nothing secret logged. Safe to share between requests.
public final class AuthRoutes: Sendable {
    /// Where the routes live and what their cookies carry.
    public struct Configuration: Sendable {
        /// The app's own origin, `https://app.example.com` or `http://127.0.0.1:8080` (scheme,
        /// host and port): the callback URLs are built on it, `POST`s must come from it, and the
        /// cookies are `Secure` when it is https.
        public var origin: String
        /// The routes' path prefix (default `/auth`).
        public var prefix: String
        /// Where a signed-in user goes (a path on the origin; default `/`).
        public var afterSignIn: String
        /// Where a signed-out user goes (default `/`).
        public var afterSignOut: String
        /// `SameSite` of the token cookies: `Lax` (default) or `Strict`.
        public var sameSite: String
        /// `Domain` of the token cookies (default none: this host only).
        public var cookieDomain: String?
        /// `Max-Age` of the token cookies in seconds (default 30 days; the refresh token's life
        /// is the longest a session can last anyway).
        public var cookieMaxAge: Int
        /// The codes the local pool "sent" to a user, shown on the confirm and reset pages: for
        /// development with no mail server (`nil`: not shown).
        public var outbox: (@Sendable (_ username: String) async -> [String])?
        /// The pages' title (the app's name).
        public var title: String
        /// The authenticator's verified-token cache: a hosted-UI sign-in puts its just-verified
        /// tokens there, so the user's first request is a hit (`nil`: it is verified again).
        public var cache: VerifiedTokenCache?

        /// A configuration for the app at `origin`.
        public init(
            origin: String, prefix: String = "/auth", afterSignIn: String = "/", afterSignOut: String = "/", sameSite: String = "Lax",
            cookieDomain: String? = nil, cookieMaxAge: Int = 30 * 86_400, outbox: (@Sendable (_ username: String) async -> [String])? = nil,
            title: String = "Sign in", cache: VerifiedTokenCache? = nil
        ) {
            self.origin = origin.hasSuffix("/") ? String(origin.dropLast()) : origin
            self.prefix = prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
            self.afterSignIn = afterSignIn
            self.afterSignOut = afterSignOut
            self.sameSite = sameSite
            self.cookieDomain = cookieDomain
            self.cookieMaxAge = cookieMaxAge
            self.outbox = outbox
            self.title = title
            self.cache = cache
        }
    }

    /// The most bytes of one `Set-Cookie` value browsers keep (RFC 6265's least limit); a token
    /// cookie over it is refused rather than silently dropped by the browser.
    public static let cookieLimit = 4096

    let plugin: any AuthServerContextPlugin
    let configuration: Configuration
    /// The token cookies' attributes (HttpOnly; Secure on https).
    public let tokenCookies: AmplifyJSCookies.Attributes
    /// The proof cookies' attributes (HttpOnly, 5 minutes, the routes' path).
    let proofCookies: AmplifyJSCookies.Attributes

    /// Routes signing users of `plugin`'s pool in and out.
    /// - Throws: `AuthError.configuration(_:_:_:)` for an origin that is not `http(s)://host[:port]`,
    ///   a prefix or target that is not a path, or a `sameSite` other than `Lax` or `Strict`.
    public init(plugin: any AuthServerContextPlugin, configuration: Configuration) throws {
        guard let origin = URLComponents(string: configuration.origin), ["http", "https"].contains(origin.scheme ?? ""),
            origin.host?.isEmpty == false, origin.path.isEmpty, origin.query == nil
        else {
            throw AuthError.configuration(
                "The auth routes' origin '\(PrintableText(configuration.origin, limit: 80))' is not http(s)://host[:port].",
                "Give the app's own origin, as the browser shows it: https://app.example.com.")
        }
        for (name, path) in [
            ("prefix", configuration.prefix), ("afterSignIn", configuration.afterSignIn), ("afterSignOut", configuration.afterSignOut),
        ]
        where Self.localPath(path) == nil && !(name == "prefix" && path.isEmpty) {
            throw AuthError.configuration(
                "The auth routes' \(name) '\(PrintableText(path, limit: 80))' is not a path on the app's origin.", "Give a path such as /auth or /.")
        }
        guard ["Lax", "Strict"].contains(configuration.sameSite) else {
            throw AuthError.configuration(
                "The auth routes' sameSite '\(PrintableText(configuration.sameSite, limit: 20))' is neither Lax nor Strict.",
                "Use Lax (the default) or Strict; None would send the tokens with other sites' requests.")
        }
        self.plugin = plugin
        self.configuration = configuration
        let secure = origin.scheme == "https"
        tokenCookies = AmplifyJSCookies.Attributes(
            maxAge: configuration.cookieMaxAge, domain: configuration.cookieDomain, secure: secure, httpOnly: true, sameSite: configuration.sameSite)
        proofCookies = AmplifyJSCookies.Attributes(
            maxAge: 300, path: configuration.prefix.isEmpty ? "/" : configuration.prefix, secure: secure, httpOnly: true, sameSite: "Lax")
    }

    /// The routes' paths under the prefix.
    public enum Route: String, Sendable, CaseIterable {
        case signIn = "sign-in"
        case signInCallback = "sign-in-callback"
        case signUp = "sign-up"
        case confirm = "confirm"
        case forgotPassword = "forgot-password"
        case resetPassword = "reset-password"
        case signOut = "sign-out"
        case signOutCallback = "sign-out-callback"
    }

    /// The full path of `route` (`/auth/sign-in`).
    public func path(_ route: Route) -> String { configuration.prefix + "/" + route.rawValue }

    /// The answer to `request`, or `nil` when its path is not one of the routes (the app's own).
    public func handle(_ request: AuthRouteRequest) async -> AuthRouteResponse? {
        guard let route = Route.allCases.first(where: { path($0) == request.path }) else { return nil }
        guard request.method == "GET" || request.method == "POST" else {
            return page(status: 405, heading: "Not allowed", message: "This page answers GET and POST only.")
        }
        let hosted: HostedUIEndpoint?
        do {
            hosted = try (plugin as? any HostedUIServerSignIn)?.hostedUIEndpoint()
        } catch {
            return page(status: 500, heading: "Sign-in is not configured", message: "The server's user pool is not configured.")
        }
        if request.method == "POST", let refusal = crossSiteRefusal(request) { return refusal }
        if let hosted {
            return await handleHosted(route, request, hosted)
        }
        return await handleLocal(route, request)
    }

    // MARK: Shared checks

    /// A `POST` that did not come from a page of the app's own origin (RFC 6454 `Origin`, or
    /// Fetch Metadata's `Sec-Fetch-Site`): refused before anything else is read.
    func crossSiteRefusal(_ request: AuthRouteRequest) -> AuthRouteResponse? {
        if let origin = request.origin, origin != configuration.origin {
            return page(status: 403, heading: "Refused", message: "This form was sent from another site.")
        }
        if let site = request.fetchSite, !["same-origin", "none"].contains(site) {
            return page(status: 403, heading: "Refused", message: "This form was sent from another site.")
        }
        return nil
    }

    /// `text` if it is a path on the app's own origin (`/…`, not `//…`, no backslash or control
    /// character): the only redirect targets taken from a request.
    static func localPath(_ text: String) -> String? {
        guard text.hasPrefix("/"), !text.hasPrefix("//"), !text.contains("\\"), text.utf8.count <= 2048,
            !text.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F })
        else { return nil }
        return text
    }

    /// A redirect (303 See Other) to `location`, setting `cookies`; refused with a page when a
    /// cookie is over ``cookieLimit`` (the browser would drop it and the user seem signed out).
    func redirect(to location: String, cookies: [String] = []) -> AuthRouteResponse {
        if let large = cookies.first(where: { $0.utf8.count > Self.cookieLimit }) {
            let name = large.prefix { $0 != "=" }
            return page(
                status: 500, heading: "The session does not fit in a cookie",
                message:
                    "The cookie \(name) would be \(large.utf8.count) bytes, over the \(Self.cookieLimit) a browser keeps. Ask the administrator to reduce the token's claims (groups, custom attributes).",
                setCookies: [])
        }
        return AuthRouteResponse(status: 303, location: location, setCookies: cookies)
    }

    /// After a sign-in that came back from another site (the hosted UI): with `SameSite=Strict`
    /// token cookies a redirect would arrive without them (the chain began cross-site), so a page
    /// sets them and moves on by itself (`meta refresh`, a same-site navigation); with `Lax`, a redirect.
    func landing(on location: String, cookies: [String]) -> AuthRouteResponse {
        var response = redirect(to: location, cookies: cookies)
        guard response.status == 303, tokenCookies.sameSite == "Strict" else { return response }
        let target = Self.escape(location)
        response.status = 200
        response.location = nil
        response.html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=\(target)"><title>Signed in</title></head>
            <body><p id="message">Signed in. <a href="\(target)">Continue</a></p></body></html>

            """
        return response
    }

    /// A random value for a proof or CSRF cookie (32 bytes, base64url).
    static func randomToken() -> String? {
        (try? Digest.randomBytes(32)).map(Base64URL.encode)
    }

    /// `a == b` in time independent of where they differ.
    static func same(_ a: String, _ b: String) -> Bool {
        Digest.constantTimeEquals(Array(a.utf8), Array(b.utf8))
    }

    /// A request cookie's value (`nil` when absent or empty), found by a lenient scan: cookies
    /// the strict reader refuses (an Amplify cookie sent twice with different paths) must not
    /// keep a user from signing in again or out.
    static func cookie(_ name: String, in request: AuthRouteRequest) -> String? {
        for header in request.cookies {
            for piece in header.utf8.split(separator: UInt8(ascii: ";")) {
                let pair = Substring(piece).trimmingOWS()
                guard let equals = pair.utf8.firstIndex(of: UInt8(ascii: "=")), pair[..<equals].trimmingOWS() == name else { continue }
                var value = pair[pair.utf8.index(after: equals)...].trimmingOWS()
                if value.utf8.count >= 2, value.utf8.first == UInt8(ascii: "\""), value.utf8.last == UInt8(ascii: "\"") {
                    value = value.dropFirst().dropLast()
                }
                if let decoded = AmplifyJSCookies.decode(String(value)), !decoded.isEmpty { return decoded }
            }
        }
        return nil
    }

    /// A `Set-Cookie` value for a proof cookie (`value` nil: deleted).
    func proofCookie(_ name: String, _ value: String?) -> String {
        AmplifyJSCookies.cookie(name: name, value: value ?? "", maxAge: value == nil ? 0 : proofCookies.maxAge, proofCookies)
    }

    /// The `Set-Cookie` values that delete the session's token cookies, read from the request's
    /// `LastAuthUser` (nothing when it has none).
    func clearingTokenCookies(_ request: AuthRouteRequest) -> [String] {
        guard let tenant = try? plugin.contextTenant(),
            let user = Self.cookie(AmplifyJSCookies.encodeName("\(AmplifyJSCookies.prefix).\(tenant.clientId).LastAuthUser"), in: request)
        else { return [] }
        return AmplifyJSCookies.clearingCookies(clientId: tenant.clientId, username: user, attributes: tokenCookies)
    }

    /// Signs out the session the request's cookies carry (its refresh token revoked by the
    /// plugin) and returns the cookies that clear it. A request without a valid session only has
    /// its cookies cleared.
    func signOutCookies(_ request: AuthRouteRequest) async -> [String] {
        guard let context = try? await plugin.serverContext(cookieHeaders: request.cookies), context.user != nil else {
            return clearingTokenCookies(request)
        }
        let plugin = self.plugin
        _ = await context.run { await plugin.signOut(options: nil) }
        let cleared = await context.responseCookies(tokenCookies)
        return cleared.isEmpty ? clearingTokenCookies(request) : cleared
    }
}
