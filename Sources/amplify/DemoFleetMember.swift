import AmplifyAuthCore
import AmplifyConcurrency
import AmplifyFleet
import AmplifyPlugins
import Foundation
import LocalAuthPlugin

#if canImport(Glibc)
    import Glibc
#endif

/// One instance of `amplify demo --instances N`: a process holding the fleet's sessions on the
/// embedded pool's shared files and the demo's Redis, driven by lines on stdin and reporting on
/// stdout, one line each (tests drive it the same way):
///
/// - in: `signup USER PASSWORD`, `signin USER PASSWORD`, `signout USER`, `held`, `quit`;
/// - out: `ready N` (sessions held after `open()`), `event NAME USER local|remote` for every Auth
///   event naming a user, `signedup USER`, `signedin USER`, `signedout USER`, `held N`,
///   `error TEXT`.
///
/// The fleet's key comes from `AMPLIFY_FLEET_KEY` (base64), never the command line.
enum DemoFleetMember {
    /// The member's settings, from the demo's hidden options.
    struct Settings {
        var configPath: String
        var redisPort: Int
        var name: String
        var clockOffset: Double
        var leaseSeconds: Double
    }

    static func run(_ settings: Settings) async throws {
        try Amplify.configure(AmplifyConfiguration(configurationFile: URL(fileURLWithPath: settings.configPath)))
        guard let plugin = try Amplify.Auth.getPlugin(for: LocalAuthPlugin.pluginKey) as? LocalAuthPlugin else {
            throw UsageError("The demo's configuration has no local Auth plugin.")
        }
        let offset = settings.clockOffset.isFinite ? settings.clockOffset : 0
        let leaseSeconds = settings.leaseSeconds.isFinite ? min(max(settings.leaseSeconds, 1), 3600) : 30
        let lease = Duration.milliseconds(Int64((leaseSeconds * 1000).rounded()))
        let fleet = try AuthFleet(
            configuration: .init(
                url: "redis://127.0.0.1:\(settings.redisPort)", encryptionKeyBase64: ProcessInfo.processInfo.environment["AMPLIFY_FLEET_KEY"] ?? "",
                instance: settings.name, leaseDuration: lease))
        let store = try AuthSessionStore(
            plugin: plugin, fleet: fleet, settings: .init(refreshLead: 60, jitter: 0.3, retryDelay: 0.5), clock: { Date().addingTimeInterval(offset) }
        )
        Amplify.Hub.listen(to: .auth) { payload in
            guard let user = payload.data as? AuthUserEvent else { return }
            say("event \(payload.eventName) \(user.username) \(payload.context is RemoteHubEvent ? "remote" : "local")")
        }
        try await store.open()
        say("ready \(await store.count)")
        for await line in standardInputLines() {
            let words = line.split(separator: " ").map(String.init)
            guard let command = words.first else { continue }
            do {
                switch (command, words.count) {
                case ("signup", 3):
                    _ = try await Amplify.Auth.signUp(username: words[1], password: words[2])
                    say("signedup \(words[1])")
                case ("signin", 3):
                    let context = try await store.newContext()
                    _ = try await context.run { try await Amplify.Auth.signIn(username: words[1], password: words[2]) }
                    say("signedin \(words[1])")
                case ("signout", 2):
                    guard let context = await store.context(for: words[1]) else { throw UsageError("\(words[1]) is not held here") }
                    _ = await context.run { await Amplify.Auth.signOut() }
                    say("signedout \(words[1])")
                case ("held", 1):
                    say("held \(await store.count)")
                case ("quit", 1):
                    await store.shutdown()
                    await fleet.close()
                    return
                default:
                    say("error unknown command: \(line)")
                }
            } catch {
                say("error \(error)".replacingOccurrences(of: "\n", with: " "))
            }
        }
        await store.shutdown()
        await fleet.close()
    }

    /// Standard input's lines, read on a thread of their own (a blocking read must not hold one
    /// of the concurrency pool's few threads).
    private static func standardInputLines() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream()
        let reader = Thread {
            while let line = readLine() { continuation.yield(line) }
            continuation.finish()
        }
        reader.start()
        return stream
    }

    /// The lines written so far: the lock keeps lines whole across threads (a count, not an
    /// empty value, for ThreadSanitizer's sake).
    private static let written = Locked(0)

    /// Writes `line` to stdout at once (no buffering: a parent reads it as it comes).
    static func say(_ line: String) {
        written.withLock { count in
            count += 1
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        }
    }
}
