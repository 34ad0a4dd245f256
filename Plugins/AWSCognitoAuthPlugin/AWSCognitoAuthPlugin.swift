import AWSPluginsCore
import Amplify
import AmplifyAuthCore
import AmplifyConcurrency
import AmplifyEventLoop
import Foundation

/// The Auth plugin for Amazon Cognito (key `awsCognitoAuthPlugin`), configured from the block the
/// Amplify CLI writes (or the Gen 2 `auth` section): user pool sign-up, sign-in with SRP (the
/// default), password or custom challenges, MFA and new-password steps, attributes, passwords,
/// sign-out (local, revoking the refresh token, or global) and account deletion; identity pool
/// credentials for the other AWS plugins; and a verifier of the pool's tokens for server code
/// (`tokenVerifier()`).
///
/// The session lives in the shared credential store, so the next process finds the user signed
/// in; a loop timer refreshes the tokens `refreshLeadSeconds` before the access token expires, and
/// `Auth.sessionExpired` fires exactly once when Cognito refuses the refresh token (a global
/// sign-out elsewhere, expiry, a deleted user). A call whose access token Cognito refuses refreshes
/// once and otherwise ends the session the same way, so a signed-in state always makes calls.
///
/// Every call dispatches its `Auth.*API` result on the Hub's `.auth` channel (data
/// `Result<Success, AuthError>`, context the username where the call names one), plus
/// `Auth.signedIn` (data `SignedInUser`), `Auth.signedOut`, `Auth.userDeleted`
/// and `Auth.sessionExpired` (data the username). Events are dispatched from the calling task;
/// the Hub delivers them on its loop.
public final class AWSCognitoAuthPlugin: AuthServerContextPlugin, AWSAuthCredentialsSource {
    /// The plugin's key in the configuration file.
    public static let pluginKey: PluginKey = "awsCognitoAuthPlugin"

    private let hub: (any HubCategoryBehavior)?
    private let loop: EventLoop?
    private let environment: [String: String]
    private let state = Locked<(engine: CognitoAuthEngine, http: HTTPClient)?>(nil)
    private let events: AuthEventReporter
    /// The verifier server contexts check request tokens with (made on first use; its JWKS cached).
    private let contextVerifier = Locked<CognitoTokenVerifier?>(nil)
    /// The sessions this process signed out (kept across `configure`, like the plugin).
    private let revokedSessions = RevokedSessions()
    private let lastWarnings = Locked<[ConfigurationWarning]>([])
    private let tokenGraceSeconds: TimeInterval

    /// A plugin that dispatches on `hub` (Amplify's by default) and runs its HTTP client and refresh
    /// timer on `loop` (Amplify's by default); `environment` supplies endpoint overrides
    /// (`AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER`, `AWS_ENDPOINT_URL`). `tokenGraceSeconds` is
    /// the clock skew server contexts allow on a request's tokens' `exp` and `nbf` (default 0,
    /// as aws-jwt-verify; a negative or non-finite value is taken as 0).
    public init(
        hub: (any HubCategoryBehavior)? = nil, loop: EventLoop? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
        tokenGraceSeconds: TimeInterval = 0
    ) {
        self.tokenGraceSeconds = tokenGraceSeconds
        self.hub = hub
        self.loop = loop
        self.environment = environment
        events = AuthEventReporter(pluginKey: Self.pluginKey, hub: hub) { error, event in AuthError.cognito(error, operation: event) }
    }

    /// `"awsCognitoAuthPlugin"`.
    public var key: PluginKey { Self.pluginKey }

    /// Reads the block (see ``CognitoAuthConfiguration``) and prepares the client. A saved session
    /// is restored on the first call.
    /// - Throws: `ConfigurationValueError` for a missing or wrong key,
    ///   `AWSPluginsError` for an endpoint that is not an http(s) URL.
    public func configure(using configuration: Any?) throws {
        let settings = try CognitoAuthConfiguration(json: configuration as? JSONValue, environment: environment)
        lastWarnings.withLock { $0 = settings.warnings }
        let loop = try loop ?? Amplify.eventLoop()
        let http = try HTTPClient(loop: loop)
        let engine = CognitoAuthEngine(
            configuration: settings, http: http, pluginKey: key, revokedSessions: revokedSessions, hub: { [hub] in hub ?? Amplify.Hub.plugin },
            eventLoop: { loop })
        state.withLock { $0 = (engine, http) }
    }

    /// Cancels the refresh timer, closes the credential store and the HTTP client.
    public func reset() async {
        let current = state.withLock { slot in
            defer { slot = nil }
            return slot
        }
        contextVerifier.withLock { $0 = nil }
        await current?.engine.shutdown()
        await current?.http.shutdown()
    }

    /// The Cognito engine, behind the account calls of `AuthEngineBackedPlugin`.
    /// - Throws: `AuthError.configuration(_:_:_:)` before `configure`.
    public func accountEngine() throws -> CognitoAuthEngine { try engine() }

    /// Where the plugin reports on the Hub.
    public var authEvents: AuthEventReporter { events }

    func engine() throws -> CognitoAuthEngine {
        try configured().engine
    }

    func configured() throws -> (engine: CognitoAuthEngine, http: HTTPClient) {
        guard let current = state.withLock({ $0 }) else {
            throw AuthError.configuration("The Cognito auth plugin is not configured.", "Call Amplify.configure() first.")
        }
        return current
    }

    /// The configuration in effect. - Throws: `AuthError.configuration(_:_:_:)` before `configure`.
    public func configuration() async throws -> CognitoAuthConfiguration {
        try engine().configuration
    }

    /// Signs in with the configured flow (or `AWSAuthSignInOptions.authFlowType`). A challenge
    /// comes back as the next step (`.confirmSignInWithNewPassword`, `.confirmSignInWithSMSMFACode`,
    /// `.confirmSignInWithTOTPCode`, `.confirmSignInWithCustomChallenge`, ...); an unconfirmed user
    /// gets `.confirmSignUp`, a user who must reset the password `.resetPassword`.
    /// - Throws: `AuthError.notAuthorized(_:_:_:)` for a wrong password,
    ///   `AuthError.invalidState(_:_:_:)` if someone is signed in.
    public func signIn(username: String?, password: String?, options: AuthSignInRequest.Options?) async throws -> AuthSignInResult {
        let flow = (options?.pluginOptions as? any AuthFlowTypeSignInOptions)?.authFlowType ?? (options?.pluginOptions as? AuthFlowType)
        let (result, user) = try await events.report(HubPayload.EventName.Auth.signInAPI, username: username, published: \.0) {
            try await engine().signIn(username: username, password: password, flow: flow)
        }
        if let user { events.lifecycle(HubPayload.EventName.Auth.signedIn, user) }
        return result
    }

    /// Signs in through the hosted UI (the server form of amplify-swift's `signInWithWebUI`):
    /// the authorization-code flow with PKCE. `presentURL` gets the sign-in URL (print it or open a
    /// browser; it is called on the calling task); the browser's redirect is received on the
    /// loopback `SignInRedirectURI` (`http://127.0.0.1:<port>/…`), and the code is exchanged for
    /// the pool's tokens. Dispatches `Auth.webUISignInAPI` and `Auth.signedIn`.
    /// - Throws: `AuthError.configuration(_:_:_:)` without `Auth.Default.OAuth` or with a
    ///   redirect URI this process cannot receive, `AuthError.notAuthorized(_:_:_:)` when
    ///   the sign-in was refused or the redirect's state is wrong, `AuthError.service(_:_:_:)`
    ///   when nothing came back within `timeout`.
    public func signInWithWebUI(
        options: AuthSignInRequest.Options? = nil, timeout: Duration = .seconds(300), presentURL: @escaping @Sendable (URL) -> Void
    ) async throws -> AuthSignInResult {
        let (result, user) = try await events.report(HubPayload.EventName.Auth.webUISignInAPI, username: nil, published: \.0) {
            try await engine().signInWithWebUI(presentURL: presentURL, timeout: timeout)
        }
        if let user { events.lifecycle(HubPayload.EventName.Auth.signedIn, user) }
        return result
    }

    /// Answers the step `signIn` returned: the new password (with `options.userAttributes` the
    /// challenge asks for), the SMS / TOTP / email code, the custom challenge's answer, or the MFA
    /// type chosen (`SMS_MFA`, `SOFTWARE_TOKEN_MFA`).
    /// - Throws: `AuthError.invalidState(_:_:_:)` when no challenge is pending, or Cognito's refusal.
    public func confirmSignIn(challengeResponse: String, options: AuthConfirmSignInRequest.Options?) async throws -> AuthSignInResult {
        let (result, user) = try await events.report(HubPayload.EventName.Auth.confirmSignInAPI, username: nil, published: \.0) {
            try await engine().confirmSignIn(response: challengeResponse, attributes: options?.userAttributes ?? [])
        }
        if let user { events.lifecycle(HubPayload.EventName.Auth.signedIn, user) }
        return result
    }

    /// Signs out: revokes the refresh token (RevokeToken), or with `globalSignOut` ends every
    /// session of the user (GlobalSignOut). The local session is forgotten even when Cognito
    /// cannot be reached (the result is then `.partial`). Never throws.
    public func signOut(options: AuthSignOutRequest.Options?) async -> any AuthSignOutResult {
        guard let engine = try? engine() else {
            return AWSCognitoSignOutResult.failed(
                AuthError.configuration("The Cognito auth plugin is not configured.", "Call Amplify.configure() first."))
        }
        let (result, username) = await engine.signOut(global: options?.globalSignOut ?? false)
        events.dispatch(HubPayload.EventName.Auth.signOutAPI, username: username, data: Result<AWSCognitoSignOutResult, AuthError>.success(result))
        if let username { events.lifecycle(HubPayload.EventName.Auth.signedOut, username) }
        return result
    }

    /// UpdateUserAttributes for one attribute; a new email or phone is pending until confirmed.
    /// - Throws: `AuthError`.
    public func update(userAttribute: AuthUserAttribute, options: AuthUpdateUserAttributeRequest.Options?) async throws -> AuthUpdateAttributeResult {
        try await events.report(HubPayload.EventName.Auth.updateUserAttributeAPI) {
            let results = try await engine().update([userAttribute])
            return results[userAttribute.key] ?? AuthUpdateAttributeResult(isUpdated: true, nextStep: .done)
        }
    }

    /// UpdateUserAttributes. - Throws: `AuthError`.
    public func update(userAttributes: [AuthUserAttribute], options: AuthUpdateUserAttributesRequest.Options?) async throws -> [AuthUserAttributeKey:
        AuthUpdateAttributeResult]
    {
        try await events.report(HubPayload.EventName.Auth.updateUserAttributesAPI) { try await engine().update(userAttributes) }
    }

    /// AWS credentials from the identity pool (authenticated with the signed-in user's ID token,
    /// guest otherwise), for the other AWS plugins' `credentials:` or a provider chain.
    /// - Throws: `AuthError.configuration(_:_:_:)` when no identity pool is configured.
    public func awsCredentialsProvider() async throws -> any AWSCredentialsProvider {
        guard let provider = try await engine().identityProvider else {
            throw AuthError.configuration(
                "No identity pool is configured.", "Add CredentialsProvider.CognitoIdentity.Default.PoolId to the configuration file.")
        }
        return provider
    }

    /// The identity pool's identity id of the current user (or guest), for `.fromIdentityID` paths.
    /// - Throws: `AuthError`.
    public func identityId() async throws -> String {
        let (id, _) = try await engine().identityPoolCredentials()
        return try id.get()
    }

    // MARK: Server contexts

    /// The user pool and app client this plugin's server contexts are bound to.
    /// - Throws: `AuthError.configuration(_:_:_:)` before `configure`.
    public func contextTenant() throws -> AuthTenant { try engine().tenant }

    /// Checks a request's tokens with the pool's JWKS (``tokenVerifier(leeway:refetchInterval:)``'s
    /// checks; the ID token's `sub` must be the access token's); an expired access token is
    /// accepted only with a refresh token, exchanged at once (REFRESH_TOKEN_AUTH).
    /// - Throws: `AuthError.notAuthorized(_:_:_:)` with the verifier's reason (a `CognitoTokenError`
    ///   underneath), `AuthError.sessionExpired(_:_:_:)` when Cognito refuses the refresh token.
    public func verifiedSession(_ tokens: AuthRequestTokens) async throws -> StoredSession {
        try await verifiedRequest(tokens).session
    }

    /// ``verifiedSession(_:)`` with the claims the verifier read (see `AuthServerContextPlugin`).
    /// - Throws: as ``verifiedSession(_:)``.
    public func verifiedRequest(_ tokens: AuthRequestTokens) async throws -> VerifiedRequest {
        let engine = try engine()
        let verifier = try contextVerifier.withLock { slot in
            if let slot { return slot }
            let made = try tokenVerifier(leeway: tokenGraceSeconds)
            slot = made
            return made
        }
        return try await engine.verifiedRequest(tokens, verifier: verifier)
    }

    /// Cognito's REFRESH_TOKEN_AUTH exchange, for contexts and the session store.
    /// - Throws: `AuthError.configuration(_:_:_:)` before `configure`.
    public func sessionRefresh() throws -> AuthSessionKeeper.Refresh { try engine().exchange }

    /// Bumped by every sign-out this process handled (the deny list's, see `RevokedSessions`).
    public var revocations: RevocationCounter { revokedSessions.revocations }

    /// See `AuthServerContextPlugin.observeRevocations(_:)`: the sign-outs this process handled.
    public func observeRevocations(_ observer: @escaping @Sendable (SessionRevocation) -> Void) {
        revokedSessions.observe(observer)
    }

    /// See `AuthServerContextPlugin.applyRevocation(_:)`: refused here too, until it would expire.
    public func applyRevocation(_ revocation: SessionRevocation) {
        revokedSessions.apply(revocation)
    }
}

extension AWSCognitoAuthPlugin: ConfigurationWarningsProviding {
    /// What the last `configure(using:)` accepted but expects not to work (see
    /// `CognitoAuthConfiguration.warnings`).
    public var configurationWarnings: [ConfigurationWarning] { lastWarnings.withLock { $0 } }
}
