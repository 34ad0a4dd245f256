import AWSCognitoAuthPlugin
import Amplify
import AmplifyAuthCore
import AmplifyConcurrency
import AmplifyEventLoop
import AmplifyTestKit
import Foundation

/// The same held sessions against moto's Cognito (its access tokens live an hour, so the store is
/// told to refresh 3,570 s early: every session falls due within one minute of signing in).
enum MotoPart {
    struct Figures {
        let sessions: Int
        let perSession: Double
        let tokenBytes: Int
        let cpuPerRefresh: Double
        let p99DueLateness: Double
        let refreshed: Int
        let failed: Int
        let peak: Int
        let seconds: Double
    }

    nonisolated static func run(sessions count: Int, cap: Int) async throws -> Figures {
        let moto = try await MotoServer.start()
        defer { moto.stop() }
        let users: [JSONValue] = (0..<count).map { ["username": .string("user\($0)"), "password": "Bench-Passw0rd1"] }
        let seeded = try await offThePool { try moto.seed(["userPool": ["name": "bench", "users": .array(users)]]) }
        let loop = try EventLoop(name: "session-benchmark-moto")
        let hub = DefaultHubPlugin(loop: loop)
        let folder = NSTemporaryDirectory() + "session-benchmark-moto-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plugin = AWSCognitoAuthPlugin(hub: hub, loop: loop, environment: [:])
        try plugin.configure(
            using: JSONValue.object([
                "CognitoUserPool": [
                    "Default": [
                        "PoolId": seeded["userPoolId"] ?? .null, "AppClientId": seeded["clientId"] ?? .null, "Region": "us-east-1",
                        "Endpoint": .string(moto.endpoint.absoluteString),
                    ]
                ],
                "Auth": ["Default": ["authenticationFlowType": "USER_PASSWORD_AUTH"]],
                "credentialStore": .string(folder + "/credentials.sqlite"),
            ]))
        let store = try AuthSessionStore(
            plugin: plugin, credentialStorePath: nil,
            settings: .init(refreshLead: 3570, jitter: 10, maxConcurrentRefreshes: cap, maximumLeadFraction: 1), eventLoop: { loop })
        let records = Locked<[String: AuthSessionStore.RefreshRecord]>([:])
        let refreshes = Locked(0)
        await store.observeRefreshes { record in
            refreshes.withLock { $0 += 1 }
            records.withLock { if $0[record.username] == nil { $0[record.username] = record } }
        }
        let names = (0..<count).map { "user\($0)" }
        let before = residentBytes()
        try await forEach(names, width: 4) { name in
            let context = try await store.newContext()
            _ = try await context.run { try await plugin.signIn(username: name, password: "Bench-Passw0rd1", options: nil) }
        }
        await hub.flush()
        let after = residentBytes()
        var tokenBytes = 0
        for name in names {
            guard let session = await store.context(for: name)?.session.current else { continue }
            tokenBytes += session.idToken.utf8.count + session.accessToken.utf8.count + session.refreshToken.utf8.count
        }
        let start = Date()
        let cpuStart = cpuSeconds()
        let countStart = refreshes.value
        while records.value.count < count, Date().timeIntervalSince(start) < 150 { try await Task.sleep(for: .milliseconds(200)) }
        let cpu = cpuSeconds() - cpuStart
        let done = refreshes.value - countStart
        let first = Array(records.value.values)
        let figures = Figures(
            sessions: count, perSession: Double(after - before - tokenBytes) / Double(count), tokenBytes: tokenBytes / max(1, count),
            cpuPerRefresh: cpu / Double(max(1, done)), p99DueLateness: percentile(first.map { max(0, $0.endedAt.timeIntervalSince($0.dueAt)) }, 0.99),
            refreshed: first.count, failed: first.filter { !$0.succeeded }.count, peak: await store.peakConcurrentRefreshes,
            seconds: Date().timeIntervalSince(start))
        await store.shutdown()
        await plugin.reset()
        await hub.reset()
        try loop.shutdown()
        return figures
    }
}
