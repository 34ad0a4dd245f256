import Amplify
import AmplifyConcurrency
import Foundation

/// One user's session inside a server context: the tokens a request brought (or a sign-in inside
/// the context produced), refreshed on demand with the plugin's exchange, one exchange at a time.
/// A session held by an ``AuthSessionStore`` also tells its store when it begins, is renewed and
/// ends, so the store persists it and its timer refreshes it.
///
/// Its events name the user (data ``AuthUserEvent``): `Auth.tokenRefreshed` after each refresh,
/// `Auth.tokenRefreshFailed` when one fails, and `Auth.sessionExpired` once when the refresh token
/// is refused. Safe from any task.
public actor AuthContextSession: AuthSessionHolding {
    /// The pool the session belongs to.
    public nonisolated let tenant: AuthTenant
    /// Request or held.
    public nonisolated let scope: AuthUserEvent.Scope
    private let exchange: AuthSessionKeeper.Refresh
    private let events: AuthEventReporter
    private weak var owner: AuthSessionStore?
    /// The fleet a held session is shared with: its refreshes go through it.
    private let sharing: (any HeldSessionSharing)?
    private var session: StoredSession?
    private var expired = false
    private var refreshing: Task<SharedRefreshOutcome, any Error>?
    /// What is readable without awaiting the actor: every request's response asks it, and a hop
    /// per request would cost more than the rest of a cached request's authentication.
    private struct Visible {
        /// The user the session is (or was) for (events, cookies).
        var user: SignedInUser?
        /// Whether the tokens changed since the context was made (a refresh or a sign-in).
        var changed = false
        /// Whether the session ended (sign-out, expiry, deletion).
        var ended = false
    }
    private nonisolated let known = Locked(Visible())
    /// Whether the tokens changed since the context was made: the response sets them.
    var changed: Bool {
        get { known.withLock { $0.changed } }
        set { known.withLock { $0.changed = newValue } }
    }
    /// Whether the session ended: the response clears its cookies.
    private(set) var ended: Bool {
        get { known.withLock { $0.ended } }
        set { known.withLock { $0.ended = newValue } }
    }

    /// A session of `tenant`, refreshed with `refresh`, reporting through `events`.
    /// - Parameters:
    ///   - tenant: the pool.
    ///   - scope: `.request` for a context made from a request, `.held` for the store's.
    ///   - initial: the session to start with (`nil`: nobody yet; a sign-in inside the context begins one).
    ///   - owner: the store holding it (held sessions only).
    ///   - events: where its events go.
    ///   - refresh: the plugin's token exchange.
    public init(
        tenant: AuthTenant, scope: AuthUserEvent.Scope, initial: StoredSession?, owner: AuthSessionStore? = nil,
        events: AuthEventReporter, refresh: @escaping AuthSessionKeeper.Refresh
    ) {
        self.init(tenant: tenant, scope: scope, initial: initial, owner: owner, sharing: nil, events: events, refresh: refresh)
    }

    /// A held session whose refreshes go through `sharing` (a fleet's store).
    package init(
        tenant: AuthTenant, scope: AuthUserEvent.Scope, initial: StoredSession?, owner: AuthSessionStore?, sharing: (any HeldSessionSharing)?,
        events: AuthEventReporter, refresh: @escaping AuthSessionKeeper.Refresh
    ) {
        self.tenant = tenant
        self.scope = scope
        self.owner = owner
        self.sharing = sharing
        self.events = events
        self.exchange = AuthSessionKeeper.requiringSameUser(refresh)
        session = initial
        known.withLock { $0.user = initial.map { SignedInUser(username: $0.username, userId: $0.userId) } }
    }

    /// The user the session is for (or was, after it ended), `nil` before a sign-in.
    public nonisolated var user: SignedInUser? { known.withLock { $0.user } }

    /// See ``AuthSessionHolding``.
    public var current: StoredSession? { session }

    /// See ``AuthSessionHolding``.
    public var hasExpired: Bool { expired }

    /// Whether the response must set or clear cookies (the tokens changed, or the session ended).
    public nonisolated var needsCookies: Bool { known.withLock { $0.changed || $0.ended } }

    /// Begins `new` (a sign-in inside the context); a held session's store persists it and arms
    /// its refresh.
    /// - Throws: `AuthError.invalidState(_:_:_:)` when the context already has a user, or the
    ///   store's error (the session is then not begun).
    public func begin(_ new: StoredSession) async throws {
        if let session {
            throw AuthError.invalidState(
                "This server context already acts as '\(session.username)', so '\(new.username)' cannot sign in in it.",
                "Sign in in a new context (AuthSessionStore.newContext() or the plugin's emptyServerContext()).")
        }
        if let owner { try await owner.began(self, new) }
        adopt(new)
    }

    /// Restores a persisted session without telling the store (which is restoring it).
    func restore(_ saved: StoredSession) {
        adopt(saved)
        changed = false
    }

    private func adopt(_ new: StoredSession) {
        session = new
        expired = false
        ended = false
        changed = true
        known.withLock { $0.user = SignedInUser(username: new.username, userId: new.userId) }
    }

    /// See ``AuthSessionHolding``. A refused refresh token ends the session: `Auth.tokenRefreshFailed`,
    /// then `Auth.sessionExpired` for this user. A session shared with a fleet is refreshed by one
    /// instance: here, or (its tokens adopted without an event) by another.
    @discardableResult
    public func refresh() async throws -> StoredSession {
        if let refreshing { return try renewedSession(try await refreshing.value) }
        guard let current = session else { throw notSignedIn() }
        guard !current.refreshToken.isEmpty else {
            throw AuthError.sessionExpired(
                "The access token of this server context has expired, and the request sent no refresh token.",
                "Send the refresh token with the request (Amplify JS's cookies carry it), or sign in again.")
        }
        let exchange = exchange
        let sharing = sharing
        let task = Task { () async throws -> SharedRefreshOutcome in
            guard let sharing else { return .refreshed(try await exchange(current)) }
            return try await sharing.refresh(current, exchange: exchange)
        }
        refreshing = task
        defer { refreshing = nil }
        let outcome: SharedRefreshOutcome
        do {
            outcome = try await task.value
        } catch {
            let failure = error as? AuthError ?? AuthError.unknown("The refresh failed: \(error)", error)
            events.lifecycle(HubPayload.EventName.Auth.tokenRefreshFailed, event(for: current, error: failure))
            if case .sessionExpired = failure { await expire(current) }
            throw failure
        }
        // A sign-out while the exchange was under way wins.
        guard let now = session, now.refreshToken == current.refreshToken else { throw notSignedIn() }
        switch outcome {
        case .refreshed(let renewed), .adopted(let renewed):
            session = renewed
            changed = true
            known.withLock { $0.user = SignedInUser(username: renewed.username, userId: renewed.userId) }
            if case .refreshed = outcome { events.lifecycle(HubPayload.EventName.Auth.tokenRefreshed, event(for: renewed)) }
            await owner?.renewed(self, renewed)
            return renewed
        case .ended:
            await end()
            throw notSignedIn()
        }
    }

    /// What a caller that joined a refresh under way gets from its outcome.
    private func renewedSession(_ outcome: SharedRefreshOutcome) throws -> StoredSession {
        switch outcome {
        case .refreshed(let renewed), .adopted(let renewed): return renewed
        case .ended: throw notSignedIn()
        }
    }

    /// Takes tokens another instance of the fleet refreshed, without an event (that instance
    /// dispatched it); `false` when the session is not `username`'s any more.
    func adopt(shared renewed: StoredSession) -> Bool {
        guard let current = session, current.username == renewed.username else { return false }
        guard current != renewed else { return true }
        session = renewed
        changed = true
        return true
    }

    /// Ends the session because it ended on another instance: no event here, and the store
    /// (which calls this) has already forgotten it.
    func endedElsewhere() {
        guard session != nil else { return }
        session = nil
        ended = true
    }

    /// See ``AuthSessionHolding``: ends the session (sign-out or deletion); a held session's store
    /// forgets it. No event (the plugin dispatches its own).
    public func end() async {
        guard let ending = session else { return }
        session = nil
        ended = true
        await owner?.ended(self, ending)
    }

    /// Ends the session as expired if `ending` is still the current one, dispatching
    /// `Auth.sessionExpired` (data ``AuthUserEvent``) once.
    public func expire(_ ending: StoredSession) async {
        guard session?.refreshToken == ending.refreshToken else { return }
        await end()
        expired = true
        events.lifecycle(HubPayload.EventName.Auth.sessionExpired, event(for: ending))
    }

    /// The data of an event about `session`'s user.
    nonisolated func event(for session: StoredSession, error: AuthError? = nil) -> AuthUserEvent {
        AuthUserEvent(username: session.username, sub: session.userId, scope: scope, tenant: tenant.id, error: error)
    }

    private func notSignedIn() -> AuthError {
        expired
            ? AuthError.sessionExpired("The session of this server context has expired.", "Sign in again.")
            : AuthError.signedOut("Nobody is signed in in this server context.", "Sign in first, or make the context from the request's tokens.")
    }
}
