import Amplify
import AmplifyAuthCore
import AmplifySQLite
import AmplifyTestKit
import Foundation
import LocalAuthPlugin
import LocalAuthTestSupport
import Testing

/// The process-wide session is one: sign-ins of different users that race for it (tasks of one
/// process, or processes sharing the credential store) leave exactly one signed in; every other
/// is told that another user signed in meanwhile, and its refresh token is revoked, not leaked.
@Suite("Local auth: concurrent sign-ins of different users")
struct ConcurrentSignInTests {
    /// Refresh tokens of the pool that could still be exchanged.
    static func liveRefreshTokens(_ fixture: LocalPoolFixture) async throws -> Int {
        let database = try SQLiteDatabase(path: fixture.folder + "/users.sqlite")
        let count = Int(try await database.run("SELECT COUNT(*) AS n FROM refresh_tokens WHERE revoked = 0").first?["n"].integer ?? -1)
        await database.close()
        return count
    }

    /// How many devices the pool tracks (a refused sign-in's is forgotten again).
    static func trackedDevices(_ fixture: LocalPoolFixture) async throws -> Int {
        let database = try SQLiteDatabase(path: fixture.folder + "/users.sqlite")
        let count = Int(try await database.run("SELECT COUNT(*) AS n FROM devices").first?["n"].integer ?? -1)
        await database.close()
        return count
    }

    /// The session the credential store holds for the plugin, as the next process would find it.
    static func storedUsername(_ fixture: LocalPoolFixture) async throws -> String? {
        let database = try SQLiteDatabase(path: fixture.folder + "/credentials.sqlite")
        let name = try await database.run("SELECT username FROM sessions").first?["username"].text
        await database.close()
        return name
    }

    static func signUp(_ plugin: LocalAuthPlugin, _ fixture: LocalPoolFixture, _ username: String) async throws {
        _ = try await plugin.signUp(username: username, password: "Passw0rd!", options: nil)
        _ = try await plugin.confirmSignUp(for: username, confirmationCode: try await fixture.latestCode(plugin, for: username), options: nil)
    }

    @Test(
        "20 users signing in at once on one plugin: one is signed in, 19 get invalidState saying another user signed in meanwhile, and only the winner's refresh token is live and its device tracked",
        .timeLimit(.minutes(10)))
    func racingSignInsInOneProcess() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        let names = (1...20).map { "racer\($0)" }
        for name in names { try await Self.signUp(plugin, fixture, name) }
        let outcomes = await withTaskGroup(of: (String, AuthError?).self) { group in
            for name in names {
                group.addTask { (name, await authError { _ = try await plugin.signIn(username: name, password: "Passw0rd!", options: nil) }) }
            }
            return await group.reduce(into: [(String, AuthError?)]()) { $0.append($1) }
        }
        let winners = outcomes.filter { $0.1 == nil }.map(\.0)
        let losers = outcomes.compactMap { $0.1 }
        #expect(winners.count == 1, "\(winners)")
        #expect(losers.count == 19)
        for error in losers {
            guard case .invalidState(let description, _, _) = error else {
                Issue.record("a loser got \(error)")
                continue
            }
            #expect(description.contains("signed in meanwhile"), "\(description)")
        }
        let winner = try #require(winners.first)
        #expect(try await plugin.getCurrentUser().username == winner)
        #expect(try await Self.storedUsername(fixture) == winner)
        let live = try await Self.liveRefreshTokens(fixture)
        #expect(live == 1, "\(live) live refresh tokens: the losers' were leaked")
        let devices = try await Self.trackedDevices(fixture)
        #expect(devices == 1, "\(devices) devices tracked: the losers' were left behind")
        let signedInEvents = await fixture.eventNames().filter { $0 == HubPayload.EventName.Auth.signedIn }.count
        #expect(signedInEvents == 1, "\(signedInEvents) signedIn events")
        // The winner's session works and signs out cleanly; then anyone may sign in.
        _ = await plugin.signOut(options: nil)
        let left = try await Self.liveRefreshTokens(fixture)
        #expect(left == 0, "\(left) live refresh tokens after the sign-out")
        #expect(try await plugin.signIn(username: losersName(outcomes), password: "Passw0rd!", options: nil).isSignedIn)
        try await fixture.close(plugin)
    }

    private func losersName(_ outcomes: [(String, AuthError?)]) -> String {
        outcomes.first { $0.1 != nil }?.0 ?? "racer1"
    }

    @Test(
        "two processes on one pool and credential store: the second to sign in (another user) is refused and its refresh token revoked, and the store keeps the first"
    )
    func secondProcessIsRefused() async throws {
        let fixture = try LocalPoolFixture()
        // Two plugins on the same files stand for two processes started before either signed in.
        let first = try fixture.plugin()
        let second = try fixture.plugin()
        try await Self.signUp(first, fixture, "alice")
        try await Self.signUp(first, fixture, "bob")
        _ = try await second.fetchAuthSession(options: nil)
        #expect(try await first.signIn(username: "alice", password: "Passw0rd!", options: nil).isSignedIn)
        let refused = await authError { _ = try await second.signIn(username: "bob", password: "Passw0rd!", options: nil) }
        guard case .invalidState(let description, _, _)? = refused else {
            Issue.record("the second process's sign-in gave \(String(describing: refused))")
            try await fixture.close(first, second)
            return
        }
        #expect(description.contains("alice"), "\(description)")
        #expect(description.contains("signed in meanwhile"), "\(description)")
        let stored = try await Self.storedUsername(fixture)
        #expect(stored == "alice")
        let live = try await Self.liveRefreshTokens(fixture)
        #expect(live == 1, "\(live) live refresh tokens")
        #expect(try await first.getCurrentUser().username == "alice")
        try await fixture.close(first, second)
    }
}
