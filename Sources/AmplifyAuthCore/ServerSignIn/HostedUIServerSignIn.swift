import Amplify

/// A hosted UI (Cognito's managed login): where ``AuthRoutes`` sends the browser to sign in, up
/// and out when the plugin has one.
public struct HostedUIEndpoint: Sendable, Equatable {
    /// The domain as a base URL, `https://myapp.auth.us-east-1.amazoncognito.com` (or a stand-in's).
    public var base: String
    /// The app client the hosted UI signs in for.
    public var clientId: String
    /// The scopes asked for.
    public var scopes: [String]
    /// The redirect URIs the app client allows after sign-in (the callback route must be one).
    public var signInRedirectURIs: [String]
    /// The redirect URIs the app client allows after sign-out.
    public var signOutRedirectURIs: [String]

    /// A hosted UI's settings.
    public init(base: String, clientId: String, scopes: [String], signInRedirectURIs: [String], signOutRedirectURIs: [String]) {
        self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
        self.clientId = clientId
        self.scopes = scopes
        self.signInRedirectURIs = signInRedirectURIs
        self.signOutRedirectURIs = signOutRedirectURIs
    }
}

/// An Auth plugin whose users sign in through a hosted UI (the Cognito plugin with an `OAuth`
/// block): ``AuthRoutes`` redirects to it and exchanges the code it returns.
public protocol HostedUIServerSignIn: AuthServerContextPlugin {
    /// The hosted UI, or `nil` when the configuration has none (the routes then serve their own pages).
    /// - Throws: `AuthError.configuration(_:_:_:)` before `configure`.
    func hostedUIEndpoint() throws -> HostedUIEndpoint?

    /// Exchanges an authorization code at the hosted UI's `/oauth2/token` with its PKCE verifier,
    /// and returns the session of the tokens after checking them with the pool's keys (with the
    /// access token's claims, for the verified-token cache).
    /// - Throws: `AuthError.notAuthorized(_:_:_:)` when the code or verifier is refused or the
    ///   tokens do not verify, `AuthError.service(_:_:_:)` when the hosted UI is unreachable.
    func exchangeAuthorizationCode(_ code: String, verifier: String, redirectURI: String) async throws -> VerifiedRequest
}
