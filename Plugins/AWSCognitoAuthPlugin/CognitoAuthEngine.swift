import AWSPluginsCore
import Amplify
import AmplifyAuthCore
import AmplifyCrypto
import AmplifyEventLoop
import Foundation

/// The Cognito plugin's state: the user pool service, the shared session keeper (credential
/// store, refresh timer, `Auth.sessionExpired`), the sign-in challenge under way and the identity
/// pool's credentials. One actor, so every call sees one consistent session.
public actor CognitoAuthEngine: AuthAccountEngine {
    /// A sign-in waiting for `confirmSignIn`.
    struct PendingChallenge: Sendable {
        let name: String
        let session: String?
        let username: String
        let parameters: [String: String]
    }

    let configuration: CognitoAuthConfiguration
    let service: CognitoUserPoolService
    let keeper: AuthSessionKeeper
    private let pluginKey: String
    let http: HTTPClient
    let loop: @Sendable () throws -> EventLoop
    private var opened: Task<Void, any Error>?
    /// Sign-in challenges under way, one per session holder, so a user's `confirmSignIn` in one
    /// context can never answer another's challenge. Cognito's challenge sessions last 3 minutes.
    private var challenges = PendingSignIns<PendingChallenge>(lifetime: challengeLifetime)
    /// Cognito's challenge sessions last 3 minutes; older entries are dropped.
    static let challengeLifetime: TimeInterval = 180
    /// Confirmed sign-ups `autoSignIn()` may complete, one per session holder.
    var autoSignIns = PendingSignIns<AutoSignInTicket>(lifetime: challengeLifetime)
    /// SignUp's sessions, by username, for the ConfirmSignUp that follows.
    var signUpSessions: [String: (session: String, at: Date)] = [:]

    /// The challenge of the session this call acts on.
    var pending: PendingChallenge? {
        get {
            guard let holder = try? sessions() else { return nil }
            return challenges.challenge(for: holder)
        }
        set {
            guard let holder = try? sessions() else { return }
            challenges.set(newValue, for: holder)
        }
    }
    private let identity: CognitoIdentityCredentialsProvider?
    /// Makes an identity-pool provider presenting the given logins (a context user's).
    let makeIdentity:
        (@Sendable (_ identityId: String?, _ logins: @escaping @Sendable () async throws -> [String: String]) -> CognitoIdentityCredentialsProvider)?
    /// The process-wide federation (`federateToIdentityPool`), if one is in effect.
    var federation: CognitoFederation?
    /// Each context user's identity-pool provider (their identity id and credentials, cached), by tenant user.
    private var contextIdentities: [String: CognitoIdentityCredentialsProvider] = [:]
    /// The guest identity of contexts with nobody signed in.
    private var contextGuest: CognitoIdentityCredentialsProvider?
    /// The most context users whose identity-pool credentials are cached at once.
    static let contextIdentityCacheLimit = 4096
    /// The pool server contexts of this engine are bound to.
    nonisolated let tenant: AuthTenant
    /// The refresh-token exchange (the keeper's, and every context's).
    nonisolated let exchange: AuthSessionKeeper.Refresh
    /// The sessions and users this process signed out: their tokens stay valid by signature
    /// until `exp`, and server contexts refuse them.
    nonisolated let revokedSessions: RevokedSessions

    init(
        configuration: CognitoAuthConfiguration, http: HTTPClient, pluginKey: String, revokedSessions: RevokedSessions = RevokedSessions(),
        hub: @escaping @Sendable () -> any HubCategoryBehavior, eventLoop: @escaping @Sendable () throws -> EventLoop
    ) {
        self.configuration = configuration
        self.revokedSessions = revokedSessions
        self.pluginKey = pluginKey
        self.http = http
        self.loop = eventLoop
        let service = CognitoUserPoolService(
            client: AWSJSONClient(
                http: http, endpoint: configuration.userPoolEndpoint, region: configuration.region, signingName: "cognito-idp",
                options: configuration.http),
            clientId: configuration.appClientId, clientSecret: configuration.appClientSecret)
        self.service = service
        let tenant = AuthTenant(pool: configuration.userPoolId, clientId: configuration.appClientId, issuer: configuration.tokenIssuer)
        self.tenant = tenant
        let exchange: AuthSessionKeeper.Refresh = { current in
            do {
                let device = (try? JSONWebToken(parsing: current.accessToken))?.string("device_key")
                let answer = try await service.refresh(refreshToken: current.refreshToken, username: current.username, deviceKey: device)
                return try Self.session(from: answer, username: current.username, keepingRefreshToken: current.refreshToken)
            } catch AuthError.notAuthorized(let description, _, let underlying) {
                throw AuthError.sessionExpired("The session could not be refreshed: \(description)", "Sign in again.", underlying)
            } catch AuthError.service(let description, _, let underlying as AWSCognitoAuthError) where underlying == .userNotFound {
                throw AuthError.sessionExpired("The session could not be refreshed: \(description)", "Sign in again.", underlying)
            }
        }
        self.exchange = exchange
        let sessions = AuthSessionKeeper(
            pluginKey: pluginKey, refreshLead: configuration.refreshLead, hub: hub, eventLoop: eventLoop, tenant: tenant.id, refresh: exchange)
        let factory = configuration.identityPoolId.map { poolId in
            let client = AWSJSONClient(
                http: http, endpoint: configuration.identityEndpoint, region: configuration.identityPoolRegion, signingName: "cognito-identity",
                options: configuration.http)
            return { @Sendable (identityId: String?, logins: @escaping @Sendable () async throws -> [String: String]) in
                CognitoIdentityCredentialsProvider(client: client, identityPoolId: poolId, identityId: identityId, logins: logins)
            }
        }
        makeIdentity = factory
        let provider = "cognito-idp.\(configuration.region).amazonaws.com/\(configuration.userPoolId)"
        identity = factory.map { make in
            make(nil) {
                // The signed-in user's ID token (refreshed when expired), or a guest.
                guard await sessions.current != nil, let session = try? await sessions.validSession() else { return [:] }
                return [provider: session.idToken]
            }
        }
        keeper = sessions
    }

    // MARK: Set-up

    /// Opens the credential store and restores a saved session, once.
    func prepare() async throws {
        if opened == nil {
            let keeper = keeper
            let path = configuration.credentialStorePath
            opened = Task { try await keeper.open(storeAt: path) }
        }
        do {
            try await opened?.value
        } catch {
            opened = nil
            throw AuthError.configuration(
                "The credential store \(configuration.credentialStorePath) could not be opened: \(error).",
                "Check that its folder exists and can be written, or set credentialStore in the plugin's block.", error)
        }
    }

    func shutdown() async {
        _ = try? await opened?.value
        await keeper.shutdown()
    }

    // MARK: Sign-up

    /// See `AuthAccountEngine`. SignUp's `Session` is kept for the confirmation, so that it can
    /// end in `autoSignIn()`; a user the pool confirms at once gets `.completeAutoSignIn`.
    public func signUp(username: String, password: String?, attributes: [AuthUserAttribute]) async throws -> AuthSignUpResult {
        guard let password, !password.isEmpty else {
            throw AuthError.validation("password", "Cognito needs a password to sign up.", "Pass a password.")
        }
        let answer = try await service.signUp(username: username, password: password, attributes: attributes)
        let sub = answer["UserSub"]?.stringValue
        let session = answer["Session"]?.stringValue
        if answer["UserConfirmed"]?.booleanValue == true {
            guard let session, !session.isEmpty else { return AuthSignUpResult(.done, userID: sub) }
            try keepAutoSignIn(username: username, session: session)
            return AuthSignUpResult(.completeAutoSignIn(session), userID: sub)
        }
        keepSignUpSession(session, for: username)
        let details = CognitoUserPoolService.deliveryDetails(answer["CodeDeliveryDetails"])
        return AuthSignUpResult(.confirmUser(details, nil, sub), userID: sub)
    }

    /// See `AuthAccountEngine`. Sends the sign-up's `Session` when this engine made it; when
    /// ConfirmSignUp answers with a `Session`, the next step is `.completeAutoSignIn` (as
    /// amplify-swift's), for `autoSignIn()`.
    public func confirmSignUp(username: String, code: String) async throws -> AuthSignUpResult {
        let answer = try await service.confirmSignUp(username: username, code: code, session: signUpSession(for: username))
        signUpSessions[username] = nil
        guard let session = answer["Session"]?.stringValue, !session.isEmpty else { return AuthSignUpResult(.done) }
        try keepAutoSignIn(username: username, session: session)
        return AuthSignUpResult(.completeAutoSignIn(session))
    }

    /// See `AuthAccountEngine`.
    public func resendSignUpCode(username: String) async throws -> AuthCodeDeliveryDetails {
        CognitoUserPoolService.deliveryDetails(try await service.resendConfirmationCode(username: username)["CodeDeliveryDetails"])
    }

    // MARK: Signed-in calls

    /// Runs `call` with a usable access token. When Cognito refuses the token (revoked by a
    /// global sign-out elsewhere, say), the session is refreshed once; if that is refused too the
    /// session ends with `Auth.sessionExpired` and the call throws `sessionExpired`.
    func withAccessToken<T: Sendable>(_ call: @Sendable (String) async throws -> T) async throws -> T {
        try await prepare()
        let holder = try sessions()
        let session = try await holder.validSession()
        do {
            return try await call(session.accessToken)
        } catch AuthError.notAuthorized {
            let renewed = try await holder.refresh()
            return try await call(renewed.accessToken)
        }
    }

    /// See `AuthAccountEngine`.
    public func currentUser() async throws -> AWSCognitoAuthUser {
        try await prepare()
        let holder = try sessions()
        guard let session = await holder.current else {
            if await holder.hasExpired { throw AuthError.sessionExpired("The session has expired.", "Sign in again.") }
            throw AuthError.signedOut("Nobody is signed in.", "Sign in first.")
        }
        return AWSCognitoAuthUser(username: session.username, userId: session.userId)
    }

    /// See `AuthAccountEngine`.
    public func attributes() async throws -> [AuthUserAttribute] {
        let service = service
        let answer = try await withAccessToken { try await service.getUser(accessToken: $0) }
        return (answer["UserAttributes"]?.asArray ?? []).compactMap { item in
            guard let name = item["Name"]?.stringValue, let value = item["Value"]?.stringValue else { return nil }
            return AuthUserAttribute(AuthUserAttributeKey(rawValue: name), value: value)
        }
    }

    func update(_ attributes: [AuthUserAttribute]) async throws -> [AuthUserAttributeKey: AuthUpdateAttributeResult] {
        let service = service
        let answer = try await withAccessToken { try await service.updateUserAttributes(accessToken: $0, attributes: attributes) }
        var results: [AuthUserAttributeKey: AuthUpdateAttributeResult] = [:]
        for attribute in attributes { results[attribute.key] = AuthUpdateAttributeResult(isUpdated: true, nextStep: .done) }
        // An attribute that needs verification (a new email) is pending until its code is confirmed.
        for details in answer["CodeDeliveryDetailsList"]?.asArray ?? [] {
            guard let name = details["AttributeName"]?.stringValue else { continue }
            results[AuthUserAttributeKey(rawValue: name)] = AuthUpdateAttributeResult(
                isUpdated: false, nextStep: .confirmAttributeWithCode(CognitoUserPoolService.deliveryDetails(details), nil))
        }
        return results
    }

    /// See `AuthAccountEngine`.
    public func changePassword(from old: String, to new: String) async throws {
        let service = service
        try await withAccessToken { try await service.changePassword(accessToken: $0, old: old, new: new) }
    }

    /// See `AuthAccountEngine`.
    public func resetPassword(username: String) async throws -> AuthResetPasswordResult {
        let answer = try await service.forgotPassword(username: username)
        return AuthResetPasswordResult(
            isPasswordReset: false,
            nextStep: .confirmResetPasswordWithCode(CognitoUserPoolService.deliveryDetails(answer["CodeDeliveryDetails"]), nil))
    }

    /// See `AuthAccountEngine`.
    public func confirmResetPassword(username: String, newPassword: String, code: String) async throws {
        try await service.confirmForgotPassword(username: username, code: code, password: newPassword)
    }

    /// Signs out: revokes the refresh token (or, `global`, signs out every session of the user),
    /// then forgets the session whatever Cognito said. Returns the result and the username.
    func signOut(global: Bool) async -> (AWSCognitoSignOutResult, String?) {
        pending = nil
        guard (try? await prepare()) != nil, let holder = try? sessions(), let current = await holder.current else {
            return (.failed(AuthError.signedOut("Nobody was signed in.", "Sign in first.")), nil)
        }
        var revokeError: AuthError?
        var globalError: AuthError?
        if global {
            do {
                let service = service
                try await withAccessToken { try await service.globalSignOut(accessToken: $0) }
            } catch {
                globalError = AuthError.cognito(error, operation: "GlobalSignOut")
            }
        }
        if !global || globalError != nil {
            do {
                try await service.revokeToken(refreshToken: (await holder.current ?? current).refreshToken)
            } catch {
                revokeError = AuthError.cognito(error, operation: "RevokeToken")
            }
        }
        rememberSignOut(current, everywhere: global)
        await holder.end()
        if revokeError == nil && globalError == nil { return (.complete, current.username) }
        return (.partial(revokeTokenError: revokeError, globalSignOutError: globalError), current.username)
    }

    /// See `AuthAccountEngine`.
    public func deleteUser() async throws -> String {
        let service = service
        try await withAccessToken { try await service.deleteUser(accessToken: $0) }
        let holder = try sessions()
        let ending = await holder.current
        if let ending { rememberSignOut(ending, everywhere: true) }
        await holder.end()
        return ending?.username ?? ""
    }

    /// Refuses `session`'s tokens (and, `everywhere`, every token of its user issued until now)
    /// in this process's server contexts: Cognito's revocation does not reach tokens already
    /// out, which stay valid by their signature until they expire.
    private nonisolated func rememberSignOut(_ session: StoredSession, everywhere: Bool) {
        if everywhere, !session.userId.isEmpty { revokedSessions.revokeUser(sub: session.userId) }
        for token in [session.accessToken, session.idToken] {
            if let parsed = try? JSONWebToken(parsing: token) { revokedSessions.revokeSession(claims: parsed.claims) }
        }
    }

    // MARK: Session

    /// See `AuthAccountEngine`.
    public func fetchAuthSession(forceRefresh: Bool) async throws -> AWSAuthCognitoSession {
        try await prepare()
        var tokens: Result<AWSCognitoUserPoolTokens, AuthError> = .failure(AuthError.signedOut("Nobody is signed in.", "Sign in first."))
        var signedIn = false
        let holder = try sessions()
        if await holder.current != nil {
            do {
                let session = try await holder.validSession(forceRefresh: forceRefresh)
                signedIn = true
                tokens = .success(
                    AWSCognitoUserPoolTokens(
                        idToken: session.idToken, accessToken: session.accessToken, refreshToken: session.refreshToken,
                        expiration: session.accessTokenExpiresAt))
            } catch let error as AuthError {
                if case .sessionExpired = error {} else { signedIn = await holder.current != nil }
                tokens = .failure(error)
            }
        } else if await holder.hasExpired {
            tokens = .failure(AuthError.sessionExpired("The session has expired.", "Sign in again."))
        }
        let sub = tokens.flatMap { token -> Result<String, AuthError> in
            guard let sub = (try? JSONWebToken(parsing: token.idToken))?.string("sub") else {
                return .failure(AuthError.service("The ID token has no sub.", "Sign in again."))
            }
            return .success(sub)
        }
        let (identityId, credentials) = await identityPoolCredentials()
        if !signedIn, let federated = federatedSession(identityId: identityId, credentials: credentials) { return federated }
        return AWSAuthCognitoSession(
            isSignedIn: signedIn, userSubResult: sub, userPoolTokensResult: tokens, identityIdResult: identityId, awsCredentialsResult: credentials)
    }

    /// The identity pool's id and credentials (authenticated when signed in, guest otherwise).
    func identityPoolCredentials() async -> (Result<String, AuthError>, Result<AWSCredentials, AuthError>) {
        guard let identity = currentIdentityProvider() else {
            let missing = AuthError.configuration(
                "No identity pool is configured.", "Add CredentialsProvider.CognitoIdentity.Default.PoolId to the configuration file.")
            return (.failure(missing), .failure(missing))
        }
        do {
            let credentials = try await identity.credentials()
            let id = await identity.currentIdentityId ?? ""
            return (.success(id), .success(credentials))
        } catch {
            let failure = AuthError.cognito(error, operation: "GetCredentialsForIdentity")
            return (.failure(failure), .failure(failure))
        }
    }

    /// The identity pool's provider, for the other AWS plugins: the current server context user's
    /// (inside a context of this pool), the process-wide one's otherwise.
    var identityProvider: CognitoIdentityCredentialsProvider? { currentIdentityProvider() }

    /// The session this call acts on: the server context's, or the process-wide keeper's.
    /// - Throws: `AuthError.invalidState(_:_:_:)` in a context of another pool.
    func sessions() throws -> any AuthSessionHolding {
        if let context = try AuthServerContext.current(for: tenant) { return context.session }
        return keeper
    }

    /// The identity-pool provider for the current context's user (made on first use and cached,
    /// up to ``contextIdentityCacheLimit`` users), or the process-wide one outside a context.
    private func currentIdentityProvider() -> CognitoIdentityCredentialsProvider? {
        let context: AuthServerContext?
        do {
            context = try AuthServerContext.current(for: tenant)
        } catch {
            // A context of another pool: none of this pool's identities (not the process-wide one's).
            return nil
        }
        guard let context else { return federation?.provider ?? identity }
        guard let makeIdentity else { return nil }
        guard let user = context.user else {
            // Nobody signed in in the context: a guest, never the process-wide user.
            if let contextGuest { return contextGuest }
            let guest = makeIdentity(nil) { [:] }
            contextGuest = guest
            return guest
        }
        if let cached = contextIdentities[user.userId] { return cached }
        if contextIdentities.count >= Self.contextIdentityCacheLimit { contextIdentities.removeAll(keepingCapacity: true) }
        let session = context.session
        let provider = "cognito-idp.\(configuration.region).amazonaws.com/\(configuration.userPoolId)"
        let made = makeIdentity(nil) {
            guard let current = try? await session.validSession(), !current.idToken.isEmpty else { return [:] }
            return [provider: current.idToken]
        }
        contextIdentities[user.userId] = made
        return made
    }

    // MARK: Server contexts

    /// The error for a token the verifier did not accept: `service` when the pool's keys could not
    /// be had (the token may be fine: try again), `notAuthorized` for everything else.
    static func refusal(_ what: String, _ error: CognitoTokenError) -> AuthError {
        if case .keysUnavailable = error {
            return AuthError.service(
                "The \(what) cannot be checked now: \(error.description).", "Try again later: the user pool's keys (JWKS) are unreachable.", error)
        }
        return AuthError.notAuthorized("The \(what) is refused: \(error.description).", "Sign in again.", error)
    }

    /// See `AuthServerContextPlugin.verifiedRequest(_:)`: the tokens checked with `verifier`.
    func verifiedRequest(_ tokens: AuthRequestTokens, verifier: CognitoTokenVerifier) async throws -> VerifiedRequest {
        var claims: JSONValue = [:]
        var expired = false
        var subject = ""
        var username = tokens.username ?? ""
        var expiresAt = Date()
        var idExpiresAt: Date?
        let signedOut = AuthError.notAuthorized("The access token is refused: its session was signed out.", "Sign in again.")
        do {
            let access = try await verifier.verify(tokens.accessToken, as: .access)
            guard !revokedSessions.isRevoked(claims: access.claims) else { throw signedOut }
            subject = access.subject
            username = access.username ?? username
            expiresAt = access.expiresAt
            claims = access.claims
        } catch CognitoTokenError.expired {
            // The verifier checks the signature, issuer, use and client before the expiry: the
            // token is genuine, and a refresh token may renew it.
            expired = true
            let parsed = try? JSONWebToken(parsing: tokens.accessToken)
            if let parsed, revokedSessions.isRevoked(claims: parsed.claims) { throw signedOut }
            subject = parsed?.string("sub") ?? ""
            username = parsed?.string("username") ?? username
        } catch let error as CognitoTokenError {
            throw Self.refusal("access token", error)
        }
        if let idToken = tokens.idToken, !expired {
            do {
                let id = try await verifier.verify(idToken, as: .id)
                guard !revokedSessions.isRevoked(claims: id.claims) else {
                    throw AuthError.notAuthorized("The ID token is refused: its session was signed out.", "Sign in again.")
                }
                guard id.subject == subject else {
                    throw AuthError.notAuthorized("The ID token is refused: it belongs to another user than the access token.", "Sign in again.")
                }
                idExpiresAt = id.expiresAt
            } catch let error as CognitoTokenError {
                throw Self.refusal("ID token", error)
            }
        }
        guard expired else {
            let session = StoredSession(
                username: username, userId: subject, idToken: tokens.idToken ?? "", accessToken: tokens.accessToken,
                refreshToken: tokens.refreshToken ?? "", accessTokenExpiresAt: expiresAt, refreshTokenExpiresAt: nil)
            return VerifiedRequest(
                session: session, accessClaims: claims, expiresAt: min(expiresAt, idExpiresAt ?? expiresAt).timeIntervalSince1970)
        }
        guard let refreshToken = tokens.refreshToken, !refreshToken.isEmpty else {
            throw AuthError.notAuthorized("The access token is refused: the token has expired, and no refresh token came with it.", "Sign in again.")
        }
        let renewed = try await exchange(
            StoredSession(
                username: username, userId: subject, idToken: "", accessToken: tokens.accessToken, refreshToken: refreshToken,
                accessTokenExpiresAt: Date(), refreshTokenExpiresAt: nil))
        guard renewed.userId == subject else {
            throw AuthError.notAuthorized("The refresh token is refused: it belongs to another user than the access token.", "Sign in again.")
        }
        return VerifiedRequest(parsing: renewed)
    }
}
