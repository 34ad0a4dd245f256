import AmplifyAuthCore
import AmplifyConcurrency
import AmplifyPlugins
import Foundation
import LocalAuthPlugin

/// `amplify demo --users N`: many users in one server process, on the embedded local pool.
enum DemoUsers {
    static let names = [
        "alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "niaj", "olivia",
        "peggy", "quentin", "rupert", "sybil", "trent", "ursula", "victor", "walter", "xena", "yves", "zoe", "arthur", "bella",
    ]

    static func run(count: Int, keep: Bool) async throws {
        let folder = try DemoCommand.makeFolder()
        defer { if !keep { try? FileManager.default.removeItem(at: folder) } }
        try DemoCommand.configure(
            in: folder, title: "Amplify demo (\(count) users in one server process)",
            """
            {"auth": {"plugins": {"localAuthPlugin": {"directory": "auth", "accessTokenLifetimeSeconds": 2,
                                                      "signUpRequiresConfirmation": false, "passwordHashCost": 16384}}}}
            """)
        guard let plugin = try Amplify.Auth.getPlugin(for: LocalAuthPlugin.pluginKey) as? LocalAuthPlugin else { return }
        let users = Array(names.prefix(count))
        let watched: Set<String> = [
            HubPayload.EventName.Auth.signedIn, HubPayload.EventName.Auth.signedOut, HubPayload.EventName.Auth.sessionExpired,
            HubPayload.EventName.Auth.tokenRefreshed, HubPayload.EventName.Auth.tokenRefreshFailed,
        ]
        let refreshed = Locked<Set<String>>([])
        Amplify.Hub.listen(to: .auth) { payload in
            guard watched.contains(payload.eventName) else { return }
            if payload.eventName == HubPayload.EventName.Auth.tokenRefreshed, let user = payload.data as? AuthUserEvent {
                // Every refresh of every session is an event; the demo prints each user's first.
                guard refreshed.withLock({ $0.insert(user.username).inserted }) else { return }
            }
            Output.line("    hub    \(payload.eventName)  \(HubListenCommand.summary(payload.data).compactText)")
        }
        let store = try AuthSessionStore(plugin: plugin, credentialStorePath: folder.appendingPathComponent("held-sessions.sqlite").path)
        try await store.open()
        let password = DemoCommand.password

        try await DemoCommand.step("Sign up \(users.joined(separator: ", "))") {
            for name in users { _ = try await Amplify.Auth.signUp(username: name, password: password) }
            return "\(users.count) users"
        }
        try await DemoCommand.step("All sign in at once, each into a session the server holds") {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for name in users {
                    let context = try await store.newContext()
                    group.addTask { _ = try await context.run { try await Amplify.Auth.signIn(username: name, password: password) } }
                }
                try await group.waitForAll()
            }
            return "the store holds \(await store.count) sessions; nobody is signed in process-wide"
        }
        try await DemoCommand.step("Wait: the store's timer refreshes every session before its 2 s access token expires") {
            let start = Date()
            while refreshed.value.count < users.count, Date().timeIntervalSince(start) < 15 { try await Task.sleep(for: .milliseconds(100)) }
            return "\(refreshed.value.count) of \(users.count) refreshed within \(String(format: "%.1f", Date().timeIntervalSince(start))) s"
        }
        let revoked = users[1]
        try await DemoCommand.step(
            "\(revoked) signs out everywhere from a browser: the held session's refresh token dies, and that session alone expires"
        ) {
            let browser = try plugin.emptyServerContext()
            _ = try await browser.run { try await Amplify.Auth.signIn(username: revoked, password: password) }
            _ = await browser.run { await Amplify.Auth.signOut(options: .init(globalSignOut: true)) }
            let start = Date()
            while await store.context(for: revoked) != nil, Date().timeIntervalSince(start) < 15 { try await Task.sleep(for: .milliseconds(100)) }
            return "\(revoked)'s held session ended after \(String(format: "%.1f", Date().timeIntervalSince(start))) s; \(await store.count) remain"
        }
        let leaving = users[2]
        try await DemoCommand.step("\(leaving) signs out") {
            guard let context = await store.context(for: leaving) else { return "\(leaving) has no session" }
            _ = await context.run { await Amplify.Auth.signOut() }
            return "signed out"
        }
        try await DemoCommand.step("Who is still held, and as whom each context acts") {
            var lines: [String] = []
            for name in await store.usernames.sorted() {
                guard let context = await store.context(for: name) else { continue }
                lines.append(try await context.run { try await Amplify.Auth.getCurrentUser().username })
            }
            return lines.joined(separator: ", ")
        }
        await store.shutdown()
        Output.line(keep ? "Done; the demo's files are in \(folder.path)." : "Done; the demo's folder was removed.")
    }
}
