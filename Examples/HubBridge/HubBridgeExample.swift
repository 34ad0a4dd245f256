import Amplify
import AmplifyAuthCore
import AmplifyPlugins
import AmplifyServiceLifecycle
import Foundation
import LocalAuthPlugin
import Logging
import RedisHubBridgePlugin
import ServiceLifecycle

/// Two processes, one Hub: a `watch` process follows the session state of users who sign in and
/// out in a `sign-out` process, through Redis.
///
///     swift run HubBridgeExample watch redis://127.0.0.1:6379       # first terminal
///     swift run HubBridgeExample sign-out redis://127.0.0.1:6379    # second terminal
@main
enum HubBridgeExample {
    static func main() async throws {
        let arguments = CommandLine.arguments.dropFirst()
        guard let role = arguments.first, ["watch", "sign-out"].contains(role) else {
            say("usage: HubBridgeExample watch|sign-out [redis://host:port]")
            exit(2)
        }
        let url = arguments.dropFirst().first ?? "redis://127.0.0.1:6379"
        // The bridge carries Auth.signedIn's SignedInUser as JSON; registered, it arrives as itself.
        HubPayloadCodec.register(SignedInUser.self)
        Amplify.registerBuiltInPlugins()
        if role == "watch" {
            try await watch(url)
        } else {
            try await signInAndOut(url)
        }
    }

    /// Writes `line` at once (`print` would hold it in a buffer while output is a pipe).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Follows the Hub's auth events, local and remote, until someone signs out: a watcher
    /// service beside `AmplifyService` under a `ServiceGroup`, so SIGTERM or SIGINT shut it down
    /// gracefully too.
    static func watch(_ url: String) async throws {
        let connected = AsyncStream<Void> { continuation in
            Amplify.Hub.listen(to: RedisHubBridgePlugin.statusChannel, eventName: "RedisHubBridge.connected") { _ in continuation.yield() }
        }
        let amplify = try AmplifyService(
            configuration: AmplifyConfiguration(hub: CategoryConfiguration(plugins: ["redisHubBridgePlugin": ["url": .string(url)]])))
        let watcher = SessionWatcher(url: url, connected: connected)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: amplify), .init(service: watcher, successTerminationBehavior: .gracefullyShutdownGroup)],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: Logger(label: "hub-bridge-watch")))
        try await group.run()
    }

    /// Signs a user up, in and out on a local user pool; the bridge forwards the auth events.
    static func signInAndOut(_ url: String) async throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("hub-bridge-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let connected = AsyncStream<Void> { continuation in
            Amplify.Hub.listen(to: RedisHubBridgePlugin.statusChannel, eventName: "RedisHubBridge.connected") { _ in continuation.yield() }
        }
        try Amplify.configure(
            AmplifyConfiguration(
                auth: CategoryConfiguration(plugins: ["localAuthPlugin": ["directory": .string(folder.path), "passwordHashCost": 16384]]),
                hub: CategoryConfiguration(plugins: ["redisHubBridgePlugin": ["url": .string(url)]])))
        for await _ in connected { break }
        let pool = try Amplify.Auth.getPlugin(for: LocalAuthPlugin.pluginKey) as? LocalAuthPlugin
        _ = try await Amplify.Auth.signUp(
            username: "alice", password: "Bridge-Passw0rd", options: .init(userAttributes: [AuthUserAttribute(.email, value: "alice@example.com")]))
        _ = try await Amplify.Auth.confirmSignUp(for: "alice", confirmationCode: try await pool?.outbox(for: "alice").last?.code ?? "")
        _ = try await Amplify.Auth.signIn(username: "alice", password: "Bridge-Passw0rd")
        say("signed in as alice")
        _ = await Amplify.Auth.signOut()
        say("signed out alice")
        await Amplify.Hub.flush()
        await Amplify.reset()
    }
}

/// Prints the session state, local and remote, until someone signs out (or the group shuts down).
struct SessionWatcher: Service {
    let url: String
    let connected: AsyncStream<Void>

    func run() async throws {
        let state = AuthSessionState()
        for await _ in connected { break }
        HubBridgeExample.say("watching \(url); sign someone out in another process")
        for await status in await state.updates.cancelOnGracefulShutdown() {
            HubBridgeExample.say("session state: \(status)")
            if status == .signedOut(.signedOut) { break }
        }
        await state.stop()
    }
}
