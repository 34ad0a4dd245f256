import AmplifyAuthCore
import AmplifyPlugins
import ArgumentParser
import Foundation
import LocalAuthPlugin

/// `amplify demo`: the whole auth flow on the embedded local pool, in a fresh temporary folder,
/// printing each Hub event and each state change as it happens.
struct DemoCommand: AmplifyCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo", abstract: "Walk the auth flow locally, printing events.",
        discussion: """
            In a fresh temporary folder with an embedded configuration (a local user pool whose access \
            tokens live 2 s and whose sessions live 5 s), signs a user up, reads the code from the outbox, \
            confirms, signs in, shows the session and attributes, waits for the session to expire on its \
            own, signs in again and signs out, printing every Hub event and every change of the observable \
            session state. --keep leaves the folder behind.

            With --users N (3 to 26), the server side instead: N users sign in at once, each into a \
            session the server holds (AuthSessionStore), every event naming its user; the store's \
            timer refreshes them; one user's refresh token is revoked elsewhere (a global sign-out \
            from a browser's request), so that session alone fails to refresh and expires; one signs \
            out; the others stay signed in.

            With --instances N (2 to 5) and --users M, a fleet: redis-server started on 127.0.0.1, N \
            instances as separate processes sharing the pool's files and that Redis (AmplifyFleet), the \
            users signed in across them; one instance is killed mid-run and the others refresh every \
            session; a sign-out on one ends the session on all; each event is dispatched once and \
            relayed to the others as remote.
            """)
    static var needsConfiguration: Bool { false }

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Leave the demo's folder behind.") var keep = false
    @Option(help: "Show N users (3 to 26) held in one server process instead.") var users: Int?
    @Option(help: "Run the users' sessions on a fleet of N server processes (2 to 5) sharing Redis.") var instances: Int?
    @Option(help: .hidden) var fleetMember: String?
    @Option(help: .hidden) var redisPort: Int = 6379
    @Option(help: .hidden) var memberName: String = "instance"
    @Option(help: .hidden) var clockOffset: Double = 0
    @Option(help: .hidden) var leaseSeconds: Double = 30

    func execute() async throws -> CommandResult {
        if let fleetMember {
            try await DemoFleetMember.run(
                .init(configPath: fleetMember, redisPort: redisPort, name: memberName, clockOffset: clockOffset, leaseSeconds: leaseSeconds))
            return CommandResult(text: "", json: .null)
        }
        if let instances {
            guard (2...5).contains(instances) else { throw ValidationError("--instances takes 2 to 5 instances.") }
            let count = users ?? 6
            guard (3...26).contains(count) else { throw ValidationError("--users takes 3 to 26 users.") }
            try await DemoFleet.run(instances: instances, users: count, keep: keep)
            return CommandResult(text: "", json: .null)
        }
        if let users {
            guard (3...26).contains(users) else { throw ValidationError("--users takes 3 to 26 users.") }
            try await DemoUsers.run(count: users, keep: keep)
            return CommandResult(text: "", json: .null)
        }
        try await Self.run(keep: keep)
        return CommandResult(text: "", json: .null)
    }

    static let username = "alice"
    static let password = "Demo-Passw0rd"

    static func run(keep: Bool) async throws {
        let folder = try makeFolder()
        defer { if !keep { try? FileManager.default.removeItem(at: folder) } }
        try configure(
            in: folder, title: "Amplify demo",
            """
            {"auth": {"plugins": {"localAuthPlugin": {"directory": "auth", "accessTokenLifetimeSeconds": 2,
                                                      "refreshTokenLifetimeSeconds": 5, "passwordHashCost": 16384}}},
             "storage": {"plugins": {"localStoragePlugin": {"directory": "storage"}}},
             "analytics": {"plugins": {"localAnalyticsPlugin": {"directory": "analytics"}}}}
            """)

        Amplify.Hub.listen(to: .auth) { payload in
            Output.line("    hub    \(payload.eventName)  \(HubListenCommand.summary(payload.data).compactText)")
        }
        let state = AuthSessionState()
        let updates = await state.updates
        let watcher = Task {
            for await status in updates { Output.line("    state  \(status)") }
        }

        try await step("Sign up \(username) with email \(username)@example.com") {
            let result = try await Amplify.Auth.signUp(
                username: username, password: password,
                options: .init(userAttributes: [AuthUserAttribute(.email, value: "\(username)@example.com")]))
            return "next step: \(result.isSignUpComplete ? "done" : "confirm the code sent to a***@e***.com")"
        }
        let plugin = try Amplify.Auth.getPlugin(for: LocalAuthPlugin.pluginKey) as? LocalAuthPlugin
        let code = try await plugin?.outbox(for: username).last?.code ?? ""
        try await step("Read the code from the pool's outbox") { "code \(code)" }
        try await step("Confirm the sign-up") {
            try await Amplify.Auth.confirmSignUp(for: username, confirmationCode: code).isSignUpComplete ? "confirmed" : "not confirmed"
        }
        try await step("Sign in") {
            try await Amplify.Auth.signIn(username: username, password: password).isSignedIn ? "signed in" : "not signed in"
        }
        try await step("Show the session and the attributes") {
            let session = try await Amplify.Auth.fetchAuthSession() as? LocalAuthSession
            let seconds = session?.tokens.map { max(0, $0.expiresAt.timeIntervalSinceNow) } ?? 0
            let attributes = try await Amplify.Auth.fetchUserAttributes().map { "\($0.key.rawValue)=\($0.value)" }
            return "signed in: \(session?.isSignedIn == true), tokens expire in \(Int(seconds.rounded())) s; \(attributes.joined(separator: ", "))"
        }
        try await step("Wait: the timer refreshes the tokens until the 5 s session ends, then the session expires on its own") {
            let start = Date()
            while await state.status != .signedOut(.sessionExpired), Date().timeIntervalSince(start) < 15 {
                try await Task.sleep(for: .milliseconds(100))
            }
            return "expired after \(String(format: "%.1f", Date().timeIntervalSince(start))) s of waiting"
        }
        try await step("Sign in again") {
            try await Amplify.Auth.signIn(username: username, password: password).isSignedIn ? "signed in" : "not signed in"
        }
        try await step("Sign out") {
            await Amplify.Auth.signOut().signedOutLocally ? "signed out" : "could not sign out"
        }
        await state.stop()
        await watcher.value
        Output.line(keep ? "Done; the demo's files are in \(folder.path)." : "Done; the demo's folder was removed.")
    }

    /// A fresh temporary folder for a demo.
    static func makeFolder() throws -> URL {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("amplify-demo-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Writes `json` as the folder's configuration file, says where the demo runs, and configures Amplify.
    static func configure(in folder: URL, title: String, _ json: String) throws {
        let file = folder.appendingPathComponent("amplifyconfiguration.json")
        try Data(json.utf8).write(to: file)
        Output.line("\(title) in \(folder.path)")
        try Amplify.configure(AmplifyConfiguration(configurationFile: file))
    }

    static func step(_ title: String, _ body: () async throws -> String) async throws {
        Output.line("• \(title)")
        let outcome = try await body()
        // Let the Hub and the state catch up, so each step's events print under it.
        await Amplify.Hub.flush()
        try await Task.sleep(for: .milliseconds(50))
        Output.line("  → \(outcome)")
    }
}
