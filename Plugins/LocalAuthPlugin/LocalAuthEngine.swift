import Amplify
import AmplifyAuthCore
import AmplifyEventLoop
import Foundation

/// The local plugin's state: the pool, the credential store, the current session and its expiry
/// timer. One actor, so every call sees one consistent session.
actor LocalAuthEngine {
    private let configuration: LocalAuthConfiguration
    private let delivery: (any CodeDelivery)?
    private let pluginKey: String
    private var pool: LocalUserPool?
    private var store: CredentialStore?
    private var session: StoredSession?
    /// Set when the session expired on its own; cleared by the next sign-in.
    private var expired = false
    private var timer: LoopTimer?
    private var timerGeneration = 0
    private var refreshing: Task<Void, any Error>?
    private var preparing: Task<LocalUserPool, any Error>?

    private let hub: @Sendable () -> any HubCategoryBehavior
    private let eventLoop: @Sendable () throws -> EventLoop

    init(
        configuration: LocalAuthConfiguration, delivery: (any CodeDelivery)?, pluginKey: String,
        hub: @escaping @Sendable () -> any HubCategoryBehavior, eventLoop: @escaping @Sendable () throws -> EventLoop
    ) {
        self.configuration = configuration
        self.delivery = delivery
        self.pluginKey = pluginKey
        self.hub = hub
        self.eventLoop = eventLoop
    }

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
            let opened = try await LocalUserPool(configuration: configuration, delivery: delivery)
            let credentials = try await CredentialStore(path: configuration.credentialStorePath)
            pool = opened
            store = credentials
            if let saved = try await credentials.load(for: pluginKey) {
                session = saved
                schedule(at: saved.accessTokenExpiresAt)
            }
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
        timer?.cancel()
        timer = nil
        await store?.close()
    }

    // MARK: Calls

    func signUp(username: String, password: String?, attributes: [AuthUserAttribute]) async throws -> AuthSignUpResult {
        let pool = try await prepare()
        guard let password else {
            throw AuthError.validation("password", "The local user pool needs a password to sign up.", "Pass a password.")
        }
        let (user, delivery) = try await pool.createUser(username: username, password: password, attributes: attributes)
        guard let delivery else { return AuthSignUpResult(.done, userID: user.sub) }
        return AuthSignUpResult(.confirmUser(delivery, nil, user.sub), userID: user.sub)
    }

    func confirmSignUp(username: String, code: String) async throws -> AuthSignUpResult {
        let pool = try await prepare()
        let user = try await existingUser(username, pool)
        guard !user.confirmed else {
            throw AuthError.invalidState("'\(username)' is already confirmed.", "Sign in.")
        }
        try await pool.consumeCode(sub: user.sub, purpose: .signUp, code: code)
        try await pool.confirm(sub: user.sub)
        return AuthSignUpResult(.done, userID: user.sub)
    }

    func resendSignUpCode(username: String) async throws -> AuthCodeDeliveryDetails {
        let pool = try await prepare()
        let user = try await existingUser(username, pool)
        guard !user.confirmed else { throw AuthError.invalidState("'\(username)' is already confirmed.", "Sign in.") }
        return try await pool.sendCode(to: user, purpose: .signUp)
    }

    func signIn(username: String?, password: String?) async throws -> (AuthSignInResult, SignedInUser?) {
        let pool = try await prepare()
        if let session {
            throw AuthError.invalidState("'\(session.username)' is already signed in.", "Sign out first.")
        }
        guard let username, let password else {
            throw AuthError.validation("username", "The local user pool needs a username and a password.", "Pass both.")
        }
        let user = try await pool.authenticate(username: username, password: password)
        guard user.confirmed else { return (AuthSignInResult(nextStep: .confirmSignUp(nil)), nil) }
        try await start(user: user, tokens: try await pool.issueTokens(for: user))
        return (AuthSignInResult(nextStep: .done), SignedInUser(username: user.username, userId: user.sub))
    }

    func signOut(global: Bool) async -> (LocalSignOutResult, String?) {
        guard let pool = try? await prepare(), let current = session else {
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
        await endSession()
        return (LocalSignOutResult(signedOutLocally: true, revokedTokens: revoked, message: message), current.username)
    }

    func deleteUser() async throws -> String {
        let (pool, user) = try await requireUser()
        try await pool.deleteUser(sub: user.sub)
        await endSession()
        return user.username
    }

    func fetchAuthSession(forceRefresh: Bool) async throws -> LocalAuthSession {
        _ = try await prepare()
        guard session != nil else { return LocalAuthSession(isSignedIn: false, userSub: nil, tokens: nil) }
        if forceRefresh || (session.map { $0.accessTokenExpiresAt <= Date() } ?? false) {
            do {
                try await refresh()
            } catch {
                return LocalAuthSession(isSignedIn: false, userSub: nil, tokens: nil)
            }
        }
        guard let session else { return LocalAuthSession(isSignedIn: false, userSub: nil, tokens: nil) }
        return LocalAuthSession(
            isSignedIn: true, userSub: session.userId,
            tokens: LocalAuthTokens(idToken: session.idToken, accessToken: session.accessToken, expiresAt: session.accessTokenExpiresAt))
    }

    func currentUser() async throws -> LocalAuthUser {
        let (_, user) = try await requireUser()
        return LocalAuthUser(username: user.username, userId: user.sub)
    }

    func attributes() async throws -> [AuthUserAttribute] {
        let (pool, user) = try await requireUser()
        return try await pool.attributes(sub: user.sub)
    }

    func update(_ attributes: [AuthUserAttribute]) async throws {
        let (pool, user) = try await requireUser()
        try await pool.setAttributes(sub: user.sub, attributes)
    }

    func changePassword(from old: String, to new: String) async throws {
        let (pool, user) = try await requireUser()
        _ = try await pool.authenticate(username: user.username, password: old)
        try await pool.setPassword(sub: user.sub, to: new)
    }

    func resetPassword(username: String) async throws -> AuthResetPasswordResult {
        let pool = try await prepare()
        let user = try await existingUser(username, pool)
        let delivery = try await pool.sendCode(to: user, purpose: .resetPassword)
        return AuthResetPasswordResult(isPasswordReset: false, nextStep: .confirmResetPasswordWithCode(delivery, nil))
    }

    func confirmResetPassword(username: String, newPassword: String, code: String) async throws {
        let pool = try await prepare()
        let user = try await existingUser(username, pool)
        try await pool.checkPolicy(newPassword)
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

    private func existingUser(_ username: String, _ pool: LocalUserPool) async throws -> PoolUser {
        guard let user = try await pool.user(named: username) else {
            throw AuthError.validation("username", "There is no user named '\(username)'.", "Check the username, or sign up first.")
        }
        return user
    }

    /// The signed-in user, refreshing an expired access token; a session that cannot be
    /// refreshed ends here with `Auth.sessionExpired`.
    private func requireUser() async throws -> (LocalUserPool, PoolUser) {
        let pool = try await prepare()
        guard let current = session else {
            if expired { throw AuthError.sessionExpired("The session has expired.", "Sign in again.") }
            throw AuthError.signedOut("Nobody is signed in.", "Sign in first.")
        }
        do {
            return (pool, try await pool.validate(accessToken: current.accessToken))
        } catch AuthError.sessionExpired {
            try await refresh()
            guard let renewed = session else { throw AuthError.sessionExpired("The session has expired.", "Sign in again.") }
            return (pool, try await pool.validate(accessToken: renewed.accessToken))
        }
    }

    private func start(user: PoolUser, tokens: IssuedTokens) async throws {
        let stored = StoredSession(
            username: user.username, userId: user.sub, idToken: tokens.idToken, accessToken: tokens.accessToken,
            refreshToken: tokens.refreshToken, accessTokenExpiresAt: tokens.accessExpiresAt, refreshTokenExpiresAt: tokens.refreshExpiresAt)
        try await store?.save(stored, for: pluginKey)
        session = stored
        expired = false
        schedule(at: tokens.accessExpiresAt)
    }

    /// Renews the tokens with the refresh token, or ends the session as expired. Concurrent
    /// callers (the timer and a call, say) share one refresh: the refresh token rotates, so a
    /// second exchange of the same token would fail and end a healthy session.
    private func refresh() async throws {
        if let refreshing { return try await refreshing.value }
        let task = Task { try await self.exchangeRefreshToken() }
        refreshing = task
        defer { refreshing = nil }
        try await task.value
    }

    private func exchangeRefreshToken() async throws {
        guard let current = session, let pool else { throw AuthError.signedOut("Nobody is signed in.", "Sign in first.") }
        do {
            let (user, tokens) = try await pool.refresh(current.refreshToken)
            try await start(user: user, tokens: tokens)
        } catch let error as AuthError {
            if case .sessionExpired = error { await expire(current) }
            throw error
        }
    }

    private func expire(_ ended: StoredSession) async {
        guard session?.refreshToken == ended.refreshToken else { return }
        await endSession()
        expired = true
        hub().dispatch(to: .auth, payload: HubPayload(eventName: HubPayload.EventName.Auth.sessionExpired, data: ended.username))
    }

    private func endSession() async {
        timer?.cancel()
        timer = nil
        timerGeneration += 1
        session = nil
        try? await store?.clear(for: pluginKey)
    }

    private func schedule(at date: Date) {
        timer?.cancel()
        timerGeneration += 1
        let generation = timerGeneration
        let delay = max(0, date.timeIntervalSinceNow)
        timer = try? eventLoop().scheduleTimer(after: .milliseconds(Int64((delay * 1000).rounded(.up)))) { [weak self] in
            Task { await self?.expiryTimerFired(generation) }
        }
    }

    private func expiryTimerFired(_ generation: Int) async {
        guard generation == timerGeneration, session != nil else { return }
        try? await refresh()
    }
}
