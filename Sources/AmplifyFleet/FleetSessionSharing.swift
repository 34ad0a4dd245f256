import Amplify
import AmplifyAuthCore
import AmplifyConcurrency
import CoreMetrics
import Foundation

/// One store's sessions shared with the fleet (``HeldSessionSharing``): records and leases in
/// Redis (``FleetSessionRecords``), notices over pub/sub (``FleetNotices``), the plugin's
/// revocations published and the others' applied, and the Auth lifecycle events of the tenant's
/// users relayed so that each is dispatched once per fleet and marked remote elsewhere.
final class FleetSessionSharing: HeldSessionSharing {
    private let records: FleetSessionRecords
    private let notices: FleetNotices
    private let plugin: any AuthServerContextPlugin
    private let hub: @Sendable () -> any HubCategoryBehavior
    private let tenant: String
    private let leaseDuration: Duration
    private let relayEvents: Bool
    private let renewingLeases: Bool
    private let metrics: (any MetricsFactory)?
    private let logger = Amplify.Logging.logger(forCategory: "Auth", forNamespace: "AmplifyFleet")

    /// Loop-independent state, under one lock.
    private struct State {
        /// The record version this instance last read or wrote, per user.
        var versions: [String: Int] = [:]
        /// Endings Redis did not take (unreachable): written again at the next resync.
        var pendingEnds: Set<String> = []
        var follower: Task<Void, Never>?
        var listener: UnsubscribeToken?
        var stopped = false
    }
    private let state = Locked(State())

    init(
        records: FleetSessionRecords, notices: FleetNotices, plugin: any AuthServerContextPlugin,
        hub: @escaping @Sendable () -> any HubCategoryBehavior,
        tenant: String, leaseDuration: Duration, relayEvents: Bool, renewingLeases: Bool = true, metrics: (any MetricsFactory)?
    ) {
        self.renewingLeases = renewingLeases
        self.records = records
        self.notices = notices
        self.plugin = plugin
        self.hub = hub
        self.tenant = tenant
        self.leaseDuration = leaseDuration
        self.relayEvents = relayEvents
        self.metrics = AmplifyMetrics.activeFactory(metrics)
    }

    private var instance: String { records.instance }

    // MARK: HeldSessionSharing

    func start(changes: @escaping @Sendable (HeldSessionChange) async -> Void) async throws -> [StoredSession] {
        let loaded = try await records.loadAll()
        for username in loaded.unreadable {
            logger.error("The fleet's session record of '\(username)' does not open (another encryption key?); that session is not held here.")
        }
        state.withLock { state in for record in loaded.records { state.versions[record.session.username] = record.version } }
        let stream = notices.events()
        let follower = Task { [self] in
            var subscribed = false
            for await event in stream {
                switch event {
                case .resubscribed:
                    // The first is the subscription itself; a later one follows a loss of Redis.
                    if subscribed { await changes(.reconnected) }
                    subscribed = true
                case .notice(let notice):
                    guard notice.origin != instance else { continue }
                    await received(notice, changes)
                }
            }
        }
        let notices = notices
        let origin = instance
        plugin.observeRevocations { revocation in
            Task { try? await notices.publish(FleetNotices.Notice(.revoked(revocation), origin: origin)) }
        }
        let listener = relayEvents ? hub().listen(to: .auth, isIncluded: nil) { [weak self] payload in self?.relay(payload) } : nil
        state.withLock {
            $0.follower = follower
            $0.listener = listener
        }
        return loaded.records.map(\.session)
    }

    func began(_ session: StoredSession) async throws {
        let version = try await records.save(session)
        state.withLock {
            $0.versions[session.username] = version
            $0.pendingEnds.remove(session.username)
        }
        await publish(.began(username: session.username))
    }

    func refresh(_ current: StoredSession, exchange: @escaping AuthSessionKeeper.Refresh) async throws -> SharedRefreshOutcome {
        let username = current.username
        let waitUntil = ContinuousClock.now + leaseDuration * 2
        var restored = false
        var waited = false
        while true {
            let known = state.withLock { $0.versions[username] ?? 0 }
            let claim: FleetSessionRecords.Claim
            do {
                claim = try await records.claim(username, knownVersion: known, leaseDuration: leaseDuration)
            } catch {
                count("unreachable")
                logger.warn("The fleet's Redis could not be asked to refresh '\(username)': \(error). The session is kept and tried again.")
                throw AuthError.service(
                    "The fleet's Redis could not be asked to refresh '\(username)': \(error)", "The refresh is tried again; check that Redis is up.",
                    error)
            }
            switch claim {
            case .newer(let record):
                state.withLock { $0.versions[username] = record.version }
                count("adopted")
                return .adopted(record.session)
            case .ended:
                forget(username)
                return .ended
            case .missing:
                // Redis lost its data (a restart without persistence): this instance's copy is the record again.
                guard !restored else { throw unreachable(username, "its record vanished twice") }
                restored = true
                if (try? await records.restore(current, version: max(1, known))) == true {
                    count("restored")
                    logger.warn(
                        "The fleet's record of '\(username)' was missing from Redis (restarted without its data?); saved again from this instance.")
                }
            case .held:
                if !waited {
                    waited = true
                    count("waited")
                }
                guard ContinuousClock.now < waitUntil else {
                    throw unreachable(username, "another instance has held its refresh lease for more than \(leaseDuration * 2)")
                }
                try await Task.sleep(for: .milliseconds(50))
            case .acquired(let lease, let record):
                // A record older than this instance's copy was saved again from a stale copy
                // (Redis lost its data): this instance's tokens are the newer ones.
                let base = record.version >= known ? record : FleetSessionRecords.Record(session: current, version: known)
                if let outcome = try await refresh(base, under: lease, known: known, exchange: exchange) { return outcome }
            }
        }
    }

    func ended(_ session: StoredSession) async {
        let username = session.username
        do {
            try await records.end(username)
            forget(username)
        } catch {
            state.withLock { _ = $0.pendingEnds.insert(username) }
            count("unreachable")
            logger.error("The fleet's Redis could not be told that '\(username)' signed out (\(error)); it is told again when it is back.")
        }
        await publish(.ended(username: username))
    }

    func resync(_ held: [StoredSession]) async -> [HeldSessionChange] {
        let pending = state.withLock { $0.pendingEnds }
        for username in pending where (try? await records.end(username)) != nil {
            state.withLock { _ = $0.pendingEnds.remove(username) }
            await publish(.ended(username: username))
        }
        let loaded: (records: [FleetSessionRecords.Record], ended: Set<String>, unreadable: [String])
        do {
            loaded = try await records.loadAll()
        } catch {
            logger.warn("The fleet's sessions could not be read again after Redis came back: \(error).")
            return []
        }
        var changes: [HeldSessionChange] = []
        let found = Dictionary(loaded.records.map { ($0.session.username, $0) }, uniquingKeysWith: { first, _ in first })
        for session in held where found[session.username] == nil {
            if loaded.ended.contains(session.username) || pending.contains(session.username) {
                changes.append(.ended(username: session.username))
                forget(session.username)
            } else {
                let known = state.withLock { $0.versions[session.username] ?? 1 }
                if (try? await records.restore(session, version: known)) == true { count("restored") }
            }
        }
        // Sessions begun elsewhere while away, and tokens refreshed elsewhere since last read.
        for record in found.values {
            let known = state.withLock { state in
                defer { state.versions[record.session.username] = record.version }
                return state.versions[record.session.username]
            }
            if known.map({ record.version > $0 }) ?? true { changes.append(.began(record.session)) }
        }
        return changes
    }

    func stop() async {
        let (follower, listener) = state.withLock { state in
            state.stopped = true
            defer {
                state.follower = nil
                state.listener = nil
            }
            return (state.follower, state.listener)
        }
        if let listener { hub().removeListener(listener) }
        await notices.stop()
        follower?.cancel()
        await follower?.value
    }

    // MARK: Refreshing under the lease

    /// Refreshes `record` under `lease`: the exchange (the lease renewed meanwhile), then the
    /// fenced write. `nil` when the write was fenced and the new holder has not written yet.
    private func refresh(
        _ record: FleetSessionRecords.Record, under lease: FleetSessionRecords.Lease, known: Int, exchange: @escaping AuthSessionKeeper.Refresh
    ) async throws -> SharedRefreshOutcome? {
        let username = record.session.username
        let renewal = renewWhileRefreshing(lease)
        let renewed: StoredSession
        do {
            renewed = try await exchange(record.session)
            renewal.cancel()
        } catch {
            renewal.cancel()
            // A refused refresh token is final only if the fleet's record still holds it: an
            // instance that stalled past its lease finds the tokens the next holder wrote.
            if let latest = try? await records.load(username), latest.version > max(known, record.version) {
                try? await records.release(lease)
                state.withLock { $0.versions[username] = latest.version }
                count("adopted")
                return .adopted(latest.session)
            }
            try? await records.release(lease)
            throw error
        }
        let written: FleetSessionRecords.Write
        do {
            written = try await records.write(renewed, under: lease, after: record.version)
        } catch {
            count("unreachable")
            throw unreachable(username, "the refreshed tokens could not be written (\(error))")
        }
        switch written {
        case .written(let version):
            state.withLock { $0.versions[username] = version }
            count("refreshed")
            return .refreshed(renewed)
        case .ended:
            forget(username)
            return .ended
        case .fenced:
            count("fenced")
            logger.warn(
                "This instance's refresh lease on '\(username)' (fence \(lease.fence)) expired and was taken before its write; the write was refused and the next holder's tokens are used."
            )
            if let latest = try? await records.load(username), latest.version > known {
                state.withLock { $0.versions[username] = latest.version }
                return .adopted(latest.session)
            }
            return nil
        }
    }

    /// Renews `lease` every third of its duration until cancelled.
    private func renewWhileRefreshing(_ lease: FleetSessionRecords.Lease) -> Task<Void, Never> {
        let records = records
        let duration = leaseDuration
        let renewing = renewingLeases
        return Task {
            while renewing, !Task.isCancelled {
                try? await Task.sleep(for: duration / 3)
                guard !Task.isCancelled, (try? await records.renew(lease, duration: duration)) == true else { return }
            }
        }
    }

    private func unreachable(_ username: String, _ reason: String) -> AuthError {
        AuthError.service("The fleet could not refresh '\(username)': \(reason).", "The refresh is tried again.")
    }

    // MARK: Notices

    private func received(_ notice: FleetNotices.Notice, _ changes: @Sendable (HeldSessionChange) async -> Void) async {
        switch notice.kind {
        case .began(let username):
            do {
                guard let record = try await records.load(username) else { return }
                state.withLock { $0.versions[username] = record.version }
                await changes(.began(record.session))
            } catch {
                logger.error("The session '\(username)' began on \(notice.origin), and its record could not be read here: \(error).")
            }
        case .ended(let username):
            forget(username)
            await changes(.ended(username: username))
        case .revoked(let revocation):
            plugin.applyRevocation(revocation)
            count("revoked")
        case .event(let name, let user, let id):
            guard relayEvents, user.tenant == tenant else { return }
            let context = RemoteHubEvent(id: id, origin: notice.origin, streamEntryId: nil, sentAt: notice.sentAt, originalContext: nil)
            hub().dispatch(to: .auth, payload: HubPayload(eventName: name, context: context, data: user))
        }
    }

    /// The Auth lifecycle events relayed: what changes who is signed in.
    private static let relayed: Set<String> = [
        HubPayload.EventName.Auth.signedIn, HubPayload.EventName.Auth.signedOut, HubPayload.EventName.Auth.sessionExpired,
        HubPayload.EventName.Auth.userDeleted,
    ]

    /// Publishes an Auth lifecycle event of this tenant's users dispatched here (not one relayed
    /// from elsewhere). Runs on the Hub's loop thread; the publish happens on a task.
    private func relay(_ payload: HubPayload) {
        guard Self.relayed.contains(payload.eventName), !(payload.context is RemoteHubEvent), let user = payload.data as? AuthUserEvent,
            user.tenant == tenant
        else { return }
        let notice = FleetNotices.Notice(.event(name: payload.eventName, user: user, id: UUID().uuidString), origin: instance)
        let notices = notices
        Task { try? await notices.publish(notice) }
    }

    private func publish(_ kind: FleetNotices.Notice.Kind) async {
        do {
            try await notices.publish(FleetNotices.Notice(kind, origin: instance))
        } catch {
            logger.warn("A fleet notice could not be published (\(error)); the other instances find it when they read the records again.")
        }
    }

    private func forget(_ username: String) {
        state.withLock { $0.versions[username] = nil }
    }

    private func count(_ kind: String) {
        guard let metrics else { return }
        Counter(label: AmplifyMetrics.authFleetEvents, dimensions: [("tenant", tenant), ("kind", kind)], factory: metrics).increment()
    }
}
