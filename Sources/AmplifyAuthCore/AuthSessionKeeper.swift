import Amplify
import AmplifyEventLoop
import CoreMetrics
import Foundation

/// The session lifecycle every Auth plugin of this package shares: one signed-in session kept in
/// the ``CredentialStore`` (so the next process finds it), a loop timer that refreshes the tokens
/// `refreshLead` seconds before the access token expires, one refresh at a time, and
/// `Auth.sessionExpired` dispatched exactly once when the refresh token is refused.
///
/// The plugin supplies the refresh itself: a closure that exchanges the stored session's refresh
/// token for a new session, throwing `AuthError.sessionExpired(_:_:_:)` when the
/// service refuses the token (revoked, expired, user gone) and any other error when it could not
/// ask (the session is then kept and the timer tries again after ``retryDelay``).
///
/// Each refresh dispatches `Auth.tokenRefreshed`, each failed one `Auth.tokenRefreshFailed` (data
/// ``AuthUserEvent``, scope `.processWide`), before any `Auth.sessionExpired`.
///
/// Refreshes, refresh failures and expiries are logged (category "Auth", metadata plugin and
/// operation; never a token) and counted in the `amplify_auth_*` metrics when a metrics backend
/// is bootstrapped.
public actor AuthSessionKeeper {
    /// Exchanges a session's refresh token for a new session.
    public typealias Refresh = @Sendable (StoredSession) async throws -> StoredSession

    /// How long the timer waits to try again after a refresh that could not reach the service.
    public static let retryDelay: TimeInterval = 30

    let pluginKey: String
    private let tenant: String
    private let refreshLead: TimeInterval
    private let hub: @Sendable () -> any HubCategoryBehavior
    private let eventLoop: @Sendable () throws -> EventLoop
    private let exchange: Refresh
    private(set) var store: CredentialStore?
    private var session: StoredSession?
    private var expired = false
    private var timer: LoopTimer?
    private var timerGeneration = 0
    private var refreshing: Task<StoredSession, any Error>?
    private let metrics: KeeperMetrics?

    /// A keeper for `pluginKey`'s session.
    /// - Parameters:
    ///   - pluginKey: the key of the plugin the session belongs to (its rows in the credential store).
    ///   - refreshLead: how long before access-token expiry the timer refreshes (0: at expiry;
    ///     a negative or non-finite lead is taken as 0).
    ///   - hub: where `Auth.sessionExpired` goes (asked when it is dispatched).
    ///   - eventLoop: the loop the timer runs on (asked when a timer is armed).
    ///   - metricsFactory: where the refresh and expiry metrics go (default:
    ///     `MetricsSystem.factory`, looked at once, now).
    ///   - tenant: the pool's ``AuthTenant/id``, named by `Auth.tokenRefreshed` and
    ///     `Auth.tokenRefreshFailed` (default: none).
    ///   - refresh: the plugin's token exchange.
    public init(
        pluginKey: String, refreshLead: TimeInterval, hub: @escaping @Sendable () -> any HubCategoryBehavior,
        eventLoop: @escaping @Sendable () throws -> EventLoop, metricsFactory: (any MetricsFactory)? = nil, tenant: String = "",
        refresh: @escaping Refresh
    ) {
        self.pluginKey = pluginKey
        self.tenant = tenant
        self.refreshLead = refreshLead.isFinite ? max(0, refreshLead) : 0
        self.hub = hub
        self.eventLoop = eventLoop
        self.exchange = Self.requiringSameUser(refresh)
        metrics = AmplifyMetrics.activeFactory(metricsFactory).map { KeeperMetrics(pluginKey: pluginKey, factory: $0) }
    }

    /// Opens the credential store at `path` and restores a saved session (arming its timer).
    /// - Throws: `SQLiteError` if the store cannot be opened or read.
    public func open(storeAt path: String) async throws {
        let opened = try await CredentialStore(path: path)
        store = opened
        if let saved = try await opened.load(for: pluginKey) {
            session = saved
            schedule(for: saved)
        }
    }

    /// The signed-in session, if any (its access token may have expired; see ``AuthSessionHolding/validSession(forceRefresh:)``).
    public var current: StoredSession? { session }

    /// Whether the last session ended by expiring (cleared by the next ``start(_:)``).
    public var hasExpired: Bool { expired }

    /// Makes `session` the signed-in one, replacing whatever was there: saves it and arms the
    /// refresh timer. A sign-in uses ``begin(_:)`` instead, which never replaces another user.
    /// - Throws: `SQLiteError` if the store cannot save it (the session is not started).
    public func start(_ new: StoredSession) async throws {
        try await store?.save(new, for: pluginKey)
        adopt(new)
    }

    /// Makes `new` the signed-in session if nobody holds the process-wide session: not this
    /// keeper, and not the credential store (another process, or another keeper on the same
    /// store). The store is checked and written in one transaction, and the keeper is an actor,
    /// so of sign-ins racing for the session exactly one wins.
    ///
    /// The others are refused and `new` is not kept anywhere: the caller still holds its tokens
    /// and must revoke its refresh token, so that it never outlives the refusal.
    /// - Throws: `AuthError.invalidState(_:_:_:)` saying who signed in meanwhile, or `SQLiteError`
    ///   if the store cannot be read or written.
    public func begin(_ new: StoredSession) async throws {
        if let session { throw Self.meanwhile(session.username, instead: new.username) }
        if let store, let conflict = try await store.save(new, for: pluginKey, ifRefreshTokenIs: nil) {
            throw Self.meanwhile(conflict.found?.username ?? "another user", instead: new.username)
        }
        // Checked again after the store's answer: a keeper without a store has no transaction.
        if let session { throw Self.meanwhile(session.username, instead: new.username) }
        adopt(new)
    }

    private static func meanwhile(_ holder: String, instead refused: String) -> AuthError {
        AuthError.invalidState(
            "'\(holder)' signed in meanwhile (in another task or process on the same credential store), so this sign-in of '\(refused)' was undone and its refresh token revoked.",
            "Sign out first; one process-wide session holds one user at a time.")
    }

    private func adopt(_ new: StoredSession) {
        session = new
        expired = false
        schedule(for: new)
    }

    /// Refreshes the tokens now. Concurrent callers (the timer and a call, say) share one
    /// exchange: refresh tokens may rotate, so a second exchange of the same token could fail and
    /// end a healthy session. A refused token ends the session with `Auth.sessionExpired`.
    /// - Throws: as ``AuthSessionHolding/validSession(forceRefresh:)``.
    @discardableResult
    public func refresh() async throws -> StoredSession {
        if let refreshing { return try await refreshing.value }
        guard let current = session else { throw notSignedIn() }
        let task = Task { try await self.exchange(current) }
        refreshing = task
        defer { refreshing = nil }
        let log = Amplify.Logging.logger(forCategory: "Auth")
        let metadata = [LogMetadataKey.plugin: pluginKey, LogMetadataKey.operation: "refresh"]
        let renewed: StoredSession
        do {
            renewed = try await task.value
        } catch let error as AuthError {
            dispatchRefreshFailed(current, error)
            if case .sessionExpired = error {
                metrics?.refused.increment()
                log.log(level: .info, "The refresh token of \(current.username) was refused; the session ends", metadata: metadata)
                await expire(current)
            } else {
                metrics?.unreachable.increment()
                log.log(level: .warn, "Could not refresh the session of \(current.username): \(error.errorDescription)", metadata: metadata)
            }
            throw error
        } catch {
            dispatchRefreshFailed(current, AuthError.unknown("The refresh failed: \(error)", error))
            metrics?.unreachable.increment()
            log.log(level: .warn, "Could not refresh the session of \(current.username): \(error)", metadata: metadata)
            throw error
        }
        metrics?.refreshed.increment()
        hub().dispatch(
            to: .auth,
            payload: HubPayload(
                eventName: HubPayload.EventName.Auth.tokenRefreshed,
                data: AuthUserEvent(username: renewed.username, sub: renewed.userId, scope: .processWide, tenant: tenant)))
        log.log(
            level: .debug, "Refreshed the session of \(current.username); the access token expires at \(renewed.accessTokenExpiresAt)",
            metadata: metadata)
        // A sign-out (or another sign-in) while the exchange was under way wins.
        guard let now = session else { throw notSignedIn() }
        guard now.refreshToken == current.refreshToken else { return now }
        // The store keeps the renewed session only if it still holds this one: another
        // process's sign-in or sign-out since then is not overwritten.
        _ = try await store?.save(renewed, for: pluginKey, ifRefreshTokenIs: current.refreshToken)
        guard let after = session else { throw notSignedIn() }
        guard after.refreshToken == current.refreshToken else { return after }
        adopt(renewed)
        return renewed
    }

    private func dispatchRefreshFailed(_ session: StoredSession, _ error: AuthError) {
        hub().dispatch(
            to: .auth,
            payload: HubPayload(
                eventName: HubPayload.EventName.Auth.tokenRefreshFailed,
                data: AuthUserEvent(username: session.username, sub: session.userId, scope: .processWide, tenant: tenant, error: error)))
    }

    /// Ends the session because the user signed out or was deleted: no event (the plugin
    /// dispatches its own), the store forgets it, the timer stops.
    public func end() async {
        timer?.cancel()
        timer = nil
        timerGeneration += 1
        session = nil
        try? await store?.clear(for: pluginKey)
    }

    /// Ends the session as expired if `ended` is still the current one, dispatching
    /// `Auth.sessionExpired` (data: the username) once.
    public func expire(_ ended: StoredSession) async {
        guard session?.refreshToken == ended.refreshToken else { return }
        await end()
        expired = true
        metrics?.expired.increment()
        hub().dispatch(to: .auth, payload: HubPayload(eventName: HubPayload.EventName.Auth.sessionExpired, data: ended.username))
    }

    /// Waits for a refresh under way, cancels the timer and closes the store.
    public func shutdown() async {
        _ = try? await refreshing?.value
        timer?.cancel()
        timer = nil
        timerGeneration += 1
        await store?.close()
        store = nil
    }

    private func notSignedIn() -> AuthError {
        expired
            ? AuthError.sessionExpired("The session has expired.", "Sign in again.")
            : AuthError.signedOut("Nobody is signed in.", "Sign in first.")
    }

    private func schedule(for session: StoredSession) {
        schedule(after: session.accessTokenExpiresAt.timeIntervalSinceNow - refreshLead)
    }

    private func schedule(after seconds: TimeInterval) {
        timer?.cancel()
        timerGeneration += 1
        let generation = timerGeneration
        // Saturating: an expiry beyond the timer's range (a far-future or infinite date) waits
        // "forever" instead of trapping on the conversion; NaN or a past expiry fires at once.
        timer = try? eventLoop().scheduleTimer(after: .saturatingSeconds(seconds)) { [weak self] in
            Task { await self?.timerFired(generation) }
        }
    }

    private func timerFired(_ generation: Int) async {
        guard generation == timerGeneration, session != nil else { return }
        do {
            try await refresh()
        } catch let error as AuthError {
            if case .sessionExpired = error { return }
            if case .signedOut = error { return }
            retryLater(generation)
        } catch {
            retryLater(generation)
        }
    }

    /// The service could not be asked: keep the session and try again, unless something else
    /// re-armed the timer meanwhile.
    private func retryLater(_ generation: Int) {
        guard generation == timerGeneration, session != nil else { return }
        schedule(after: Self.retryDelay)
    }
}

/// The keeper's counters for one plugin.
private struct KeeperMetrics: Sendable {
    let refreshed: Counter
    let refused: Counter
    let unreachable: Counter
    let expired: Counter

    init(pluginKey: String, factory: any MetricsFactory) {
        refreshed = Counter(label: AmplifyMetrics.authRefreshes, dimensions: [("plugin", pluginKey)], factory: factory)
        refused = Counter(label: AmplifyMetrics.authRefreshFailures, dimensions: [("plugin", pluginKey), ("reason", "refused")], factory: factory)
        unreachable = Counter(
            label: AmplifyMetrics.authRefreshFailures, dimensions: [("plugin", pluginKey), ("reason", "unreachable")], factory: factory)
        expired = Counter(label: AmplifyMetrics.authSessionExpiries, dimensions: [("plugin", pluginKey)], factory: factory)
    }
}
