import Amplify
import AmplifyEventLoop
import Foundation

/// Sessions the server holds for many users of one pool (a backend that signs users in on their
/// behalf): a sign-in inside one of its contexts (``newContext()``) creates that user's session;
/// each is refreshed by the store's loop timer before its access token expires, with at most
/// ``Settings/maxConcurrentRefreshes`` refreshes at once and a random jitter, so thousands of
/// sessions expiring in the same minute neither storm the pool nor miss their deadlines. Sessions
/// are kept in the credential store (a file of mode 0600) and restored by ``open()``; one ends on
/// sign-out, deletion, or when its refresh token is refused (`Auth.tokenRefreshFailed`, then one
/// `Auth.sessionExpired` for that user and nobody else).
///
/// Every event names its user (data ``AuthUserEvent``, scope `.held`). The timer fires on the
/// event loop and only starts tasks there; refreshes run on the concurrency pool. Safe from any task.
public actor AuthSessionStore {
    /// How the store refreshes.
    public struct Settings: Sendable {
        /// How long before access-token expiry a refresh is due (at most
        /// ``maximumLeadFraction`` of the token's remaining life, so short-lived tokens are not
        /// refreshed in a loop). Default 60 s.
        public var refreshLead: TimeInterval
        /// The largest share of a token's remaining life the lead may take (0 to 1). Default 0.5.
        public var maximumLeadFraction: Double
        /// The most a refresh is moved earlier at random (at most a quarter of the token's
        /// remaining life). Default 30 s.
        public var jitter: TimeInterval
        /// The most refreshes under way at once. Default 16.
        public var maxConcurrentRefreshes: Int
        /// How long after a refresh that could not reach the service it is tried again. Default 30 s.
        public var retryDelay: TimeInterval

        /// Settings.
        public init(
            refreshLead: TimeInterval = 60, jitter: TimeInterval = 30, maxConcurrentRefreshes: Int = 16, retryDelay: TimeInterval = 30,
            maximumLeadFraction: Double = 0.5
        ) {
            self.refreshLead = refreshLead.isFinite ? max(0, refreshLead) : 0
            self.maximumLeadFraction = maximumLeadFraction.isFinite ? min(1, max(0, maximumLeadFraction)) : 0.5
            self.jitter = jitter.isFinite ? max(0, jitter) : 0
            self.maxConcurrentRefreshes = max(1, maxConcurrentRefreshes)
            self.retryDelay = retryDelay.isFinite ? max(0.01, retryDelay) : 30
        }
    }

    /// One timer-driven refresh, for monitoring (and the benchmark): when it was due, when it
    /// ran, and whether it succeeded.
    public struct RefreshRecord: Sendable {
        /// Whose session.
        public let username: String
        /// When the access token it replaced expired.
        public let expiresAt: Date
        /// When the timer meant to start it.
        public let dueAt: Date
        /// When it started and ended.
        public let startedAt: Date
        /// When it ended.
        public let endedAt: Date
        /// Whether new tokens came back.
        public let succeeded: Bool
    }

    private let plugin: any AuthServerContextPlugin
    private let tenant: AuthTenant
    private let settings: Settings
    private let storePath: String?
    private let eventLoop: @Sendable () throws -> EventLoop
    /// The clock refreshes are timed by (an instance's own, skew and all).
    private let now: @Sendable () -> Date
    /// The fleet the sessions are shared with (AmplifyFleet), instead of the credential store.
    private let sharing: (any HeldSessionSharing)?
    private var credentials: CredentialStore?
    private var held: [String: AuthContextSession] = [:]
    private var generation: [String: UInt32] = [:]
    private var schedule = DeadlineHeap()
    private var queue: [String] = []
    private var queueHead = 0
    private var inFlight = 0
    private var maxInFlightSeen = 0
    private var timer: LoopTimer?
    private var timerDeadline: Date?
    private var running: [Int: Task<Void, Never>] = [:]
    private var nextTask = 0
    private var observer: (@Sendable (RefreshRecord) -> Void)?
    private var closed = false

    /// A store of `plugin`'s sessions, kept in the credential store at `credentialStorePath`
    /// (`nil`: in memory only), refreshed on `eventLoop` (default: Amplify's).
    /// - Throws: `AuthError.configuration(_:_:_:)` before the plugin is configured.
    public init(
        plugin: any AuthServerContextPlugin, credentialStorePath: String?, settings: Settings = Settings(),
        eventLoop: (@Sendable () throws -> EventLoop)? = nil
    ) throws {
        try self.init(
            plugin: plugin, credentialStorePath: credentialStorePath, sharing: nil, settings: settings, eventLoop: eventLoop, clock: { Date() })
    }

    /// A store whose sessions are shared through `sharing` (a fleet's Redis) instead of a file,
    /// timing its refreshes by `clock`.
    /// - Throws: `AuthError.configuration(_:_:_:)` before the plugin is configured.
    package init(
        plugin: any AuthServerContextPlugin, credentialStorePath: String?, sharing: (any HeldSessionSharing)?, settings: Settings,
        eventLoop: (@Sendable () throws -> EventLoop)?, clock: @escaping @Sendable () -> Date
    ) throws {
        now = clock
        self.plugin = plugin
        tenant = try plugin.contextTenant()
        self.settings = settings
        storePath = credentialStorePath
        self.sharing = sharing
        self.eventLoop = eventLoop ?? { try Amplify.eventLoop() }
    }

    /// Opens the credential store and restores the sessions saved there (arming their refreshes;
    /// those whose refresh token has expired are forgotten). A fleet's store loads the sessions
    /// the fleet holds and starts following the other instances.
    /// - Throws: `SQLiteError` when the store cannot be opened or read, the fleet's error when its
    ///   Redis cannot be read.
    public func open() async throws {
        if let sharing, !sharingStarted {
            sharingStarted = true
            let shared = try await sharing.start { [weak self] change in await self?.sharedChange(change) }
            for saved in shared where held[saved.username] == nil { hold(saved) }
        }
        guard credentials == nil, let storePath else { return }
        let store = try await CredentialStore(path: storePath)
        credentials = store
        let refresh = try plugin.sessionRefresh()
        for saved in try await store.loadHeld(tenant: tenant.id) {
            if let end = saved.refreshTokenExpiresAt, end <= Date() {
                try? await store.clearHeld(username: saved.username, tenant: tenant.id)
                continue
            }
            let session = AuthContextSession(tenant: tenant, scope: .held, initial: nil, owner: self, events: plugin.authEvents, refresh: refresh)
            await session.restore(saved)
            held[saved.username] = session
            arm(saved)
        }
    }

    private var sharingStarted = false

    /// Holds `saved` (a session the fleet holds) and arms its refresh.
    private func hold(_ saved: StoredSession) {
        guard let refresh = try? plugin.sessionRefresh() else { return }
        let session = AuthContextSession(
            tenant: tenant, scope: .held, initial: saved, owner: self, sharing: sharing, events: plugin.authEvents, refresh: refresh)
        held[saved.username] = session
        arm(saved)
    }

    /// What another instance of the fleet changed.
    private func sharedChange(_ change: HeldSessionChange) async {
        guard !closed else { return }
        switch change {
        case .began(let saved):
            if let session = held[saved.username] {
                if await session.adopt(shared: saved) { arm(saved) }
            } else {
                hold(saved)
            }
        case .ended(let username):
            guard let session = held.removeValue(forKey: username) else { return }
            generation[username, default: 0] &+= 1
            await session.endedElsewhere()
        case .reconnected:
            guard let sharing else { return }
            var copies: [StoredSession] = []
            for session in held.values { if let current = await session.current { copies.append(current) } }
            for missed in await sharing.resync(copies) where missed != .reconnected { await sharedChange(missed) }
        }
    }

    /// A context with nobody signed in: a sign-in inside it (`Amplify.Auth.signIn` in its `run`)
    /// creates that user's held session.
    /// - Throws: `AuthError.configuration(_:_:_:)` before the plugin is configured.
    public func newContext() throws -> AuthServerContext {
        let session = AuthContextSession(
            tenant: tenant, scope: .held, initial: nil, owner: self, sharing: sharing, events: plugin.authEvents,
            refresh: try plugin.sessionRefresh())
        return AuthServerContext(plugin: plugin, session: session)
    }

    /// A context acting as `username`'s held session, or `nil` when the store holds none for them.
    public func context(for username: String) -> AuthServerContext? {
        held[username].map { AuthServerContext(plugin: plugin, session: $0) }
    }

    /// The users whose sessions the store holds.
    public var usernames: [String] { Array(held.keys) }

    /// How many sessions the store holds.
    public var count: Int { held.count }

    /// The most refreshes that ran at once so far (never above the cap).
    public var peakConcurrentRefreshes: Int { maxInFlightSeen }

    /// Calls `observer` after every timer-driven refresh (on the task that ran it).
    public func observeRefreshes(_ observer: (@Sendable (RefreshRecord) -> Void)?) {
        self.observer = observer
    }

    /// Stops the timer, waits for refreshes under way, and closes the credential store (or leaves
    /// the fleet); the sessions stay saved for the next ``open()``.
    public func shutdown() async {
        closed = true
        timer?.cancel()
        timer = nil
        for task in running.values { await task.value }
        running.removeAll()
        held.removeAll()
        await sharing?.stop()
        await credentials?.close()
        credentials = nil
    }

    // MARK: From the sessions

    /// A held session began (a sign-in in one of the store's contexts): saved, then refreshed on time.
    /// - Throws: `AuthError.invalidState(_:_:_:)` when the store already holds one for the user,
    ///   `SQLiteError` (or the fleet's error) when it cannot be saved.
    func began(_ session: AuthContextSession, _ new: StoredSession) async throws {
        if let existing = held[new.username], existing !== session {
            throw AuthError.invalidState(
                "The store already holds a session for '\(new.username)'.", "Use AuthSessionStore.context(for:), or sign that session out first.")
        }
        try await sharing?.began(new)
        try await credentials?.saveHeld(new, tenant: tenant.id)
        held[new.username] = session
        arm(new)
    }

    /// A held session's tokens were renewed: saved (a fleet's refresh saved them already), and
    /// the next refresh armed.
    func renewed(_ session: AuthContextSession, _ renewed: StoredSession) async {
        guard held[renewed.username] === session else { return }
        try? await credentials?.saveHeld(renewed, tenant: tenant.id)
        arm(renewed)
    }

    /// A held session ended (sign-out, deletion, expiry): forgotten.
    func ended(_ session: AuthContextSession, _ ending: StoredSession) async {
        guard held[ending.username] === session else { return }
        held[ending.username] = nil
        generation[ending.username, default: 0] &+= 1
        await sharing?.ended(ending)
        try? await credentials?.clearHeld(username: ending.username, tenant: tenant.id)
    }

    // MARK: The timer

    /// Arms `session`'s next refresh: `refreshLead` (at most `maximumLeadFraction` of the remaining life) before
    /// expiry, minus a random jitter (at most a quarter of it).
    private func arm(_ session: StoredSession) {
        let remaining = max(0, session.accessTokenExpiresAt.timeIntervalSince(now()))
        let lead = min(settings.refreshLead, remaining * settings.maximumLeadFraction)
        let jitter = min(settings.jitter, remaining / 4)
        let due = session.accessTokenExpiresAt.addingTimeInterval(-lead - (jitter > 0 ? Double.random(in: 0...jitter) : 0))
        push(session.username, due: due, expiresAt: session.accessTokenExpiresAt)
    }

    private func push(_ username: String, due: Date, expiresAt: Date) {
        generation[username, default: 0] &+= 1
        schedule.push(DeadlineHeap.Entry(due: due, expiresAt: expiresAt, username: username, generation: generation[username, default: 0]))
        rearm()
    }

    /// Keeps the one loop timer set for the earliest deadline.
    private func rearm() {
        guard !closed, let first = schedule.peek else { return }
        if let timerDeadline, timerDeadline <= first.due, timer != nil { return }
        timer?.cancel()
        timerDeadline = first.due
        timer = try? eventLoop().scheduleTimer(after: .saturatingSeconds(first.due.timeIntervalSince(now()))) { [weak self] in
            Task { await self?.timerFired() }
        }
    }

    private func timerFired() {
        guard !closed else { return }
        timer = nil
        timerDeadline = nil
        let current = now()
        while let first = schedule.peek, first.due <= current {
            schedule.pop()
            guard generation[first.username] == first.generation, held[first.username] != nil else { continue }
            queue.append(first.username)
            dueTimes[first.username] = (first.due, first.expiresAt)
        }
        startQueued()
        rearm()
    }

    private var dueTimes: [String: (due: Date, expiresAt: Date)] = [:]

    /// Starts queued refreshes up to the cap.
    private func startQueued() {
        while inFlight < settings.maxConcurrentRefreshes, queueHead < queue.count {
            let username = queue[queueHead]
            queueHead += 1
            guard let session = held[username] else { continue }
            let times = dueTimes.removeValue(forKey: username) ?? (Date(), Date())
            inFlight += 1
            maxInFlightSeen = max(maxInFlightSeen, inFlight)
            let id = nextTask
            nextTask += 1
            let observer = observer
            running[id] = Task {
                let started = Date()
                var succeeded = false
                var retry = false
                do {
                    try await session.refresh()
                    succeeded = true
                } catch let error as AuthError {
                    switch error {
                    case .sessionExpired, .signedOut: break
                    default: retry = true
                    }
                } catch {
                    retry = true
                }
                observer?(
                    RefreshRecord(
                        username: username, expiresAt: times.expiresAt, dueAt: times.due, startedAt: started, endedAt: Date(), succeeded: succeeded))
                self.refreshEnded(id, username: username, session: session, retry: retry)
            }
        }
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        }
    }

    private func refreshEnded(_ id: Int, username: String, session: AuthContextSession, retry: Bool) {
        running[id] = nil
        inFlight -= 1
        if retry, held[username] === session {
            push(username, due: now().addingTimeInterval(settings.retryDelay), expiresAt: now().addingTimeInterval(settings.retryDelay))
        }
        startQueued()
    }
}

/// A binary min-heap of refresh deadlines.
struct DeadlineHeap {
    struct Entry {
        let due: Date
        let expiresAt: Date
        let username: String
        let generation: UInt32
    }

    private var entries: [Entry] = []

    var peek: Entry? { entries.first }
    var count: Int { entries.count }

    mutating func push(_ entry: Entry) {
        entries.append(entry)
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].due < entries[parent].due else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    @discardableResult
    mutating func pop() -> Entry? {
        guard let first = entries.first else { return nil }
        let last = entries.removeLast()
        guard !entries.isEmpty else { return first }
        entries[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count, entries[left].due < entries[smallest].due { smallest = left }
            if right < entries.count, entries[right].due < entries[smallest].due { smallest = right }
            guard smallest != parent else { break }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }
}
