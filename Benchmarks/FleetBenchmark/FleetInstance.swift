import Amplify
import AmplifyAuthCore
import AmplifyConcurrency
import AmplifyEventLoop
import AmplifyFleet
import BenchmarkReport
import Foundation
import LocalAuthPlugin

/// One server instance of the benchmark: its own Hub, plugin on the shared pool files, and
/// store (in a fleet when given Redis's port), counting the refreshes it made and the first
/// refresh of each session it saw.
final class FleetInstance: Sendable {
    let name: String
    let hub: DefaultHubPlugin
    let plugin: LocalAuthPlugin
    let fleet: AuthFleet?
    let store: AuthSessionStore
    /// Exchanges this instance made (its local `Auth.tokenRefreshed`), and refusals.
    let exchanges = Locked(0)
    let refusals = Locked(0)
    /// Each session's first successful refresh seen here.
    let firsts = Locked<[String: AuthSessionStore.RefreshRecord]>([:])

    init(_ name: String, loop: EventLoop, settings: JSONValue, redisPort: Int?, key: [UInt8], storeSettings: AuthSessionStore.Settings) throws {
        self.name = name
        hub = DefaultHubPlugin(loop: loop)
        plugin = LocalAuthPlugin(hub: hub, eventLoop: loop)
        try plugin.configure(using: settings)
        if let redisPort {
            let fleet = try AuthFleet(configuration: .init(port: redisPort, encryptionKey: key, instance: name), eventLoop: loop, hub: hub)
            self.fleet = fleet
            store = try AuthSessionStore(plugin: plugin, fleet: fleet, settings: storeSettings)
        } else {
            fleet = nil
            store = try AuthSessionStore(plugin: plugin, credentialStorePath: nil, settings: storeSettings, eventLoop: { loop })
        }
        let exchanges = exchanges
        let refusals = refusals
        _ = hub.listen(to: .auth, isIncluded: nil) { payload in
            guard !(payload.context is RemoteHubEvent) else { return }
            if payload.eventName == HubPayload.EventName.Auth.tokenRefreshed { exchanges.withLock { $0 += 1 } }
            if payload.eventName == HubPayload.EventName.Auth.tokenRefreshFailed { refusals.withLock { $0 += 1 } }
        }
    }

    func close() async {
        await store.shutdown()
        await fleet?.close()
        await plugin.reset()
        await hub.reset()
    }

    /// What one measured window gave.
    struct Figures {
        var refreshes = 0
        var refused = 0
        var missing = 0
        var seconds = 0.0
        var rate = 0.0
        var p99Lateness = 0.0
        var cpuPerRefresh = 0.0
        var cpuPerSessionSecond = 0.0
        var commandsPerRefresh = 0.0
    }

    /// Signs `users` in round robin across `instances`, then measures the window in which every
    /// session is refreshed once.
    static func measure(_ instances: [FleetInstance], users: [String], password: String) async throws -> Figures {
        for instance in instances {
            let firsts = instance.firsts
            await instance.store.observeRefreshes { record in
                guard record.succeeded else { return }
                firsts.withLock { if $0[record.username] == nil { $0[record.username] = record } }
            }
        }
        let indexed = Array(users.enumerated())
        try await forEach(indexed, width: 4) { index, name in
            let instance = instances[index % instances.count]
            let context = try await instance.store.newContext()
            _ = try await context.run { try await instance.plugin.signIn(username: name, password: password, options: nil) }
        }
        let held = Date()
        for instance in instances {
            while await instance.store.count < users.count, Date().timeIntervalSince(held) < 120 { try await Task.sleep(for: .milliseconds(50)) }
        }
        let idleStart = (Date(), cpuSeconds())
        try await Task.sleep(for: .seconds(2))
        let idleRate = (cpuSeconds() - idleStart.1) / Date().timeIntervalSince(idleStart.0)

        let exchangesBefore = instances.reduce(0) { $0 + $1.exchanges.value }
        let commandsBefore = instances.reduce(0) { $0 + ($1.fleet?.roundTrips ?? 0) }
        let start = Date()
        let cpuStart = cpuSeconds()
        var seen: [String: AuthSessionStore.RefreshRecord] = [:]
        while Date().timeIntervalSince(start) < 240 {
            seen = [:]
            for instance in instances {
                for (name, record) in instance.firsts.value where seen[name].map({ record.endedAt < $0.endedAt }) ?? true { seen[name] = record }
            }
            if seen.count >= users.count { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        let seconds = Date().timeIntervalSince(start)
        let cpu = max(0, cpuSeconds() - cpuStart - idleRate * seconds)
        var figures = Figures()
        figures.refreshes = instances.reduce(0) { $0 + $1.exchanges.value } - exchangesBefore
        figures.refused = instances.reduce(0) { $0 + $1.refusals.value }
        figures.missing = users.count - seen.count
        figures.seconds = seconds
        let records = Array(seen.values)
        let span = (records.map(\.endedAt).max() ?? start).timeIntervalSince(records.map(\.startedAt).min() ?? start)
        figures.rate = Double(figures.refreshes) / max(span, 1e-3)
        figures.p99Lateness = percentile(records.map { max(0, $0.endedAt.timeIntervalSince($0.expiresAt)) }, 0.99)
        figures.cpuPerRefresh = cpu / Double(max(1, figures.refreshes))
        figures.cpuPerSessionSecond = cpu / Double(users.count) / max(seconds, 1e-3)
        let commands = instances.reduce(0) { $0 + ($1.fleet?.roundTrips ?? 0) } - commandsBefore
        figures.commandsPerRefresh = Double(commands) / Double(max(1, figures.refreshes))
        return figures
    }
}

/// Runs `body` for each of `items`, `width` at a time.
func forEach<T: Sendable>(_ items: [T], width: Int, _ body: @escaping @Sendable (T) async throws -> Void) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        var iterator = items.makeIterator()
        for _ in 0..<width { if let item = iterator.next() { group.addTask { try await body(item) } } }
        while try await group.next() != nil { if let item = iterator.next() { group.addTask { try await body(item) } } }
    }
}

/// The `p` quantile of `values` (nearest rank), `nan` for none.
func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, max(0, Int((Double(sorted.count) * p).rounded(.up)) - 1))]
}
