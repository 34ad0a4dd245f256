import Amplify
import AmplifyAuthCore
import AmplifyEventLoop
import Foundation

/// The local plugin's state: the pool and the session keeper (credential store, expiry timer,
/// refresh) shared with every Auth plugin. One actor, so every call sees one consistent session.
public actor LocalAuthEngine: AuthAccountEngine {
    private let configuration: LocalAuthConfiguration
    private let delivery: (any CodeDelivery)?
    private let pluginKey: String
    private var pool: LocalUserPool?
    private(set) var keeper: AuthSessionKeeper?
    private var preparing: Task<LocalUserPool, any Error>?

    private let hub: @Sendable () -> any HubCategoryBehavior
    /// The plugin's count of revocations, which the pool bumps.
    private let revocations: RevocationCounter
    private let eventLoop: @Sendable () throws -> EventLoop
    /// The pool server contexts of this engine are bound to.
    nonisolated let tenant: AuthTenant
    /// Sign-ins waiting for their second factor, one per session holder (Cognito's 3 minutes).
    var pendingSignIns = PendingSignIns<LocalSignInChallenge>(lifetime: 180)
    /// Confirmed sign-ups `autoSignIn()` may complete (their usernames), one per session holder.
    var autoSignIns: PendingSignIns<String>

    init(
        configuration: LocalAuthConfiguration, delivery: (any CodeDelivery)?, revocations: RevocationCounter, pluginKey: String,
        hub: @escaping @Sendable () -> any HubCategoryBehavior, eventLoop: @escaping @Sendable () throws -> EventLoop
    ) {
        self.configuration = configuration
        self.delivery = delivery
        self.revocations = revocations
        self.pluginKey = pluginKey
        self.hub = hub
        self.eventLoop = eventLoop
        tenant = AuthTenant(pool: configuration.directory, clientId: configuration.clientId, issuer: configuration.issuer)
        autoSignIns = PendingSignIns(lifetime: configuration.codeLifetime)
    }

    /// The session this call acts on: the server context's, or the process-wide keeper's.
    /// - Throws: `AuthError.invalidState(_:_:_:)` in a context of another pool.
    func sessions() throws -> (any AuthSessionHolding)? {
        if let context = try AuthServerContext.current(for: tenant) { return context.session }
        return keeper
    }

    /// How long a code (and an auto sign-in ticket) stays valid, in seconds.
    nonisolated var codeLifetime: TimeInterval { configuration.codeLifetime }

    /// How many wrong codes a sign-in, or a code, survives.
    nonisolated var codeMaxAttempts: Int { configuration.codeMaxAttempts }

    // MARK: Set-up

    /// Opens the pool and the store and restores a saved session, once: concurrent callers share
    /// the one opening.
    func prepare() async throws -> LocalUserPool {
        if let pool { return pool }
        if let preparing { return try await preparing.value }
        let task = Task { try await self.open() }
        preparing = task
        do {
            let opened = try await task.value
            return opened
        } catch {
            preparing = nil
            throw error
        }
    }

    private func open() async throws -> LocalUserPool {
        do {
            let opened = try await LocalUserPool(configuration: configuration, delivery: delivery, revocations: revocations)
            // The local pool's tokens are renewed at expiry (lead 0): they live as long as configured.
            let sessions = AuthSessionKeeper(pluginKey: pluginKey, refreshLead: 0, hub: hub, eventLoop: eventLoop, tenant: tenant.id) { current in
                let (user, tokens) = try await opened.refresh(current.refreshToken, owner: current.userId)
                return Self.storedSession(user, tokens)
            }
            try await sessions.open(storeAt: configuration.credentialStorePath)
            pool = opened
            keeper = sessions
            return opened
        } catch let error as AuthError {
            throw error
        } catch {
            throw AuthError.configuration(
                "The local user pool in \(configuration.directory) could not be opened: \(error).",
                "Check that the directory (and \(configuration.credentialStorePath)) can be created and written.", error)
        }
    }

    /// Waits for an opening under way, then cancels the timer and closes the store.
    func shutdown() async {
        _ = try? await preparing?.value
        await keeper?.shutdown()
    }

    // MARK: Calls

    /// See `AuthAccountEngine`.
    public func signUp(username: String, password: String?, attributes: [AuthUserAttribute]) async throws -> AuthSignUpResult {
        let pool = try await prepare()
        guard let password else {
            throw AuthError.validation("password", "The local user pool needs a password to sign up.", "Pass a password.")
        }
        let (user, delivery) = try await pool.createUser(username: username, password: password, attributes: attributes)
        guard let delivery else { return AuthSignUpResult(.done, userID: user.sub) }
        return AuthSignUpResult(.confirmUser(delivery, nil, user.sub), userID: user.sub)
    }

    /// See `AuthAccountEngine`.
    public func confirmSignUp(username: String, code: String) async throws -> AuthSignUpResult {
        let pool = try await prepare()
        guard let user = try await knownUser(username, pool) else {
            try await pool.consumePhantomCode(for: username, purpose: .signUp)
            throw Self.noSuchUser(username)
        }
        guard !user.confirmed else {
            throw AuthError.invalidState("'\(PrintableText(username))' is already confirmed.", "Sign in.")
        }
        try await pool.consumeCode(sub: user.sub, purpose: .signUp, code: code)
        try await pool.confirm(sub: user.sub)
        return AuthSignUpResult(.done, userID: user.sub)
    }

    /// See `AuthAccountEngine`.
    public func resendSignUpCode(username: String) async throws -> AuthCodeDeliveryDetails {
        let pool = try await prepare()
        guard let user = try await knownUser(username, pool) else { return try await pool.phantomCode(for: username, purpose: .signUp) }
        guard !user.confirmed else { throw AuthError.invalidState("'\(PrintableText(username))' is already confirmed.", "Sign in.") }
        return try await pool.sendCode(to: user, purpose: .signUp)
    }

    func signOut(global: Bool) async -> (LocalSignOutResult, String?) {
        guard let pool = try? await prepare(), let holder = try? sessions(), let current = await holder.current else {
            if let holder = try? sessions() { pendingSignIns.set(nil, for: holder) }
            return (LocalSignOutResult(signedOutLocally: true, revokedTokens: false, message: "Nobody was signed in."), nil)
        }
        var revoked = true
        var message: String?
        do {
            if global {
                try await pool.revokeAll(sub: current.userId)
            } else {
                try await pool.revoke(refreshToken: current.refreshToken)
            }
        } catch {
            revoked = false
            message = "The tokens could not be revoked: \(error)"
        }
        await holder.end()
        return (LocalSignOutResult(signedOutLocally: true, revokedTokens: revoked, message: message), current.username)
    }

    /// See `AuthAccountEngine`.
    public func deleteUser() async throws -> String {
        let (pool, user) = try await requireUser()
        try await pool.deleteUser(sub: user.sub)
        await (try sessions())?.end()
        return user.username
    }

    /// See `AuthAccountEngine`.
    public func fetchAuthSession(forceRefresh: Bool) async throws -> LocalAuthSession {
        _ = try await prepare()
        guard let holder = try sessions(), await holder.current != nil,
            let session = try? await holder.validSession(forceRefresh: forceRefresh)
        else { return LocalAuthSession(isSignedIn: false, userSub: nil, tokens: nil) }
        return LocalAuthSession(
            isSignedIn: true, userSub: session.userId,
            tokens: LocalAuthTokens(idToken: session.idToken, accessToken: session.accessToken, expiresAt: session.accessTokenExpiresAt))
    }

    /// See `AuthAccountEngine`.
    public func currentUser() async throws -> LocalAuthUser {
        let (_, user) = try await requireUser()
        return LocalAuthUser(username: user.username, userId: user.sub)
    }

    /// See `AuthAccountEngine`.
    public func attributes() async throws -> [AuthUserAttribute] {
        let (pool, user) = try await requireUser()
        return try await pool.attributes(sub: user.sub)
    }

    func update(_ attributes: [AuthUserAttribute]) async throws {
        let (pool, user) = try await requireUser()
        try await pool.setAttributes(sub: user.sub, attributes)
    }

    /// See `AuthAccountEngine`.
    public func changePassword(from old: String, to new: String) async throws {
        let (pool, user) = try await requireUser()
        _ = try await pool.authenticate(username: user.username, password: old)
        try await pool.setPassword(sub: user.sub, to: new)
    }

    /// See `AuthAccountEngine`.
    public func resetPassword(username: String) async throws -> AuthResetPasswordResult {
        let pool = try await prepare()
        let delivery: AuthCodeDeliveryDetails
        if let user = try await knownUser(username, pool) {
            delivery = try await pool.sendCode(to: user, purpose: .resetPassword)
        } else {
            delivery = try await pool.phantomCode(for: username, purpose: .resetPassword)
        }
        return AuthResetPasswordResult(isPasswordReset: false, nextStep: .confirmResetPasswordWithCode(delivery, nil))
    }

    /// See `AuthAccountEngine`.
    public func confirmResetPassword(username: String, newPassword: String, code: String) async throws {
        let pool = try await prepare()
        let user = try await knownUser(username, pool)
        try await pool.checkPolicy(newPassword)
        guard let user else {
            try await pool.consumePhantomCode(for: username, purpose: .resetPassword)
            throw Self.noSuchUser(username)
        }
        try await pool.consumeCode(sub: user.sub, purpose: .resetPassword, code: code)
        try await pool.setPassword(sub: user.sub, to: newPassword)
        // A reset password ends every session the old one opened.
        try await pool.revokeAll(sub: user.sub)
    }

    func outbox(username: String?) async throws -> [CodeMessage] {
        try await prepare().outbox(username: username)
    }

    func jwks() async throws -> JSONValue {
        try await prepare().jwks()
    }

    // MARK: Session lifecycle

    func existingUser(_ username: String, _ pool: LocalUserPool) async throws -> PoolUser {
        guard let user = try await pool.user(named: username) else { throw Self.noSuchUser(username) }
        return user
    }

    /// The user named `username`; `nil` when there is none and user-existence errors are
    /// prevented (the caller then answers as for a user), else the "no such user" error.
    private func knownUser(_ username: String, _ pool: LocalUserPool) async throws -> PoolUser? {
        if let user = try await pool.user(named: username) { return user }
        guard configuration.preventUserExistenceErrors else { throw Self.noSuchUser(username) }
        return nil
    }

    static func noSuchUser(_ username: String) -> AuthError {
        AuthError.validation("username", "There is no user named '\(PrintableText(username, limit: 80))'.", "Check the username, or sign up first.")
    }

    /// The signed-in user, refreshing an expired access token; a session that cannot be
    /// refreshed ends here with `Auth.sessionExpired`.
    func requireUser() async throws -> (LocalUserPool, PoolUser) {
        let pool = try await prepare()
        guard let holder = try sessions() else { throw AuthError.signedOut("Nobody is signed in.", "Sign in first.") }
        let current = try await holder.validSession()
        do {
            return (pool, try await pool.validate(accessToken: current.accessToken))
        } catch AuthError.sessionExpired {
            let renewed = try await holder.refresh()
            return (pool, try await pool.validate(accessToken: renewed.accessToken))
        }
    }

    static func storedSession(_ user: PoolUser, _ tokens: IssuedTokens) -> StoredSession {
        StoredSession(
            username: user.username, userId: user.sub, idToken: tokens.idToken, accessToken: tokens.accessToken,
            refreshToken: tokens.refreshToken, accessTokenExpiresAt: tokens.accessExpiresAt, refreshTokenExpiresAt: tokens.refreshExpiresAt)
    }

    // MARK: Server contexts

    /// The exchange of a refresh token for new tokens that contexts and the session store use.
    nonisolated func contextRefresh() -> AuthSessionKeeper.Refresh {
        { [weak self] current in
            guard let self else { throw AuthError.configuration("The local auth plugin was reset.", "Configure it again.") }
            let pool = try await self.prepare()
            let (user, tokens) = try await pool.refresh(current.refreshToken, owner: current.userId)
            return Self.storedSession(user, tokens)
        }
    }

    /// See `AuthServerContextPlugin.verifiedRequest(_:)`.
    func verifiedRequest(_ tokens: AuthRequestTokens) async throws -> VerifiedRequest {
        let pool = try await prepare()
        let verified = try await pool.verifyRequest(accessToken: tokens.accessToken, idToken: tokens.idToken)
        guard verified.expired else {
            let session = StoredSession(
                username: verified.user.username, userId: verified.user.sub, idToken: tokens.idToken ?? "", accessToken: tokens.accessToken,
                refreshToken: tokens.refreshToken ?? "", accessTokenExpiresAt: verified.expiresAt, refreshTokenExpiresAt: nil)
            let expiresAt = min(verified.expiresAt, verified.idExpiresAt ?? verified.expiresAt)
            return VerifiedRequest(session: session, accessClaims: verified.accessClaims, expiresAt: expiresAt.timeIntervalSince1970)
        }
        guard let refreshToken = tokens.refreshToken, !refreshToken.isEmpty else {
            throw AuthError.notAuthorized("The access token is refused: the token has expired, and no refresh token came with it.", "Sign in again.")
        }
        let (renewedUser, issued) = try await pool.refresh(refreshToken, owner: verified.user.sub)
        return VerifiedRequest(parsing: Self.storedSession(renewedUser, issued))
    }
}
