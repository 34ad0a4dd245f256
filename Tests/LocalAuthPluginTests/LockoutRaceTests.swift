import Amplify
import AmplifySQLite
import AmplifyTestKit
import Foundation
import LocalAuthPlugin
import LocalAuthTestSupport
import Testing

@Suite("Local auth: the lockout holds against parallel guesses")
struct LockoutRaceTests {
    @Test(
        "60 parallel wrong passwords against a limit of 5: the counter reaches 5, at most 5 are evaluated, and the right password is refused while locked"
    )
    func parallelGuessesLock() async throws {
        let fixture = try LocalPoolFixture(["lockout": ["maxFailedAttempts": 5, "lockoutSeconds": 60]])
        let first = try fixture.plugin()
        _ = try await first.signUp(username: "mallory", password: "Passw0rd!", options: nil)
        _ = try await first.confirmSignUp(for: "mallory", confirmationCode: try await fixture.latestCode(first, for: "mallory"), options: nil)
        // Three plugins on one pool stand for three processes, each with its own connection.
        let plugins = [first, try fixture.plugin(), try fixture.plugin()]
        let answers = await withTaskGroup(of: String.self) { group in
            for guess in 0..<60 {
                let plugin = plugins[guess % plugins.count]
                group.addTask {
                    let error = await authError { _ = try await plugin.signIn(username: "mallory", password: "Wrong0ne!\(guess)", options: nil) }
                    return error?.errorDescription ?? "signed in"
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        let evaluated = answers.filter { $0 == "Incorrect username or password." }.count
        let locked = answers.filter { $0.hasPrefix("Too many failed sign-in attempts") }.count
        #expect(evaluated == 5, "\(answers)")
        #expect(evaluated + locked == 60, "\(answers)")
        let database = try SQLiteDatabase(path: fixture.folder + "/users.sqlite")
        let row = try #require(try await database.run("SELECT failed_attempts, locked_until FROM users WHERE username = 'mallory'").first)
        await database.close()
        #expect((row["failed_attempts"].integer ?? 0) >= 5)
        #expect((row["locked_until"].real ?? 0) > Date().timeIntervalSince1970)
        let right = await authError { _ = try await first.signIn(username: "mallory", password: "Passw0rd!", options: nil) }
        #expect(right?.errorDescription.hasPrefix("Too many failed sign-in attempts; the account is locked for") == true)
        try await fixture.close(plugins[0], plugins[1], plugins[2])
    }

    @Test("when a lock runs out, the count starts again from one: one more wrong password does not lock again")
    func expiredLockStartsNewCount() async throws {
        // A lock of 5 s, waited out by its recorded end: on a loaded machine a 1 s lock ran out
        // before the test could see it.
        let fixture = try LocalPoolFixture(["lockout": ["maxFailedAttempts": 2, "lockoutSeconds": 5]])
        let plugin = try fixture.plugin()
        _ = try await plugin.signUp(username: "trent", password: "Passw0rd!", options: nil)
        _ = try await plugin.confirmSignUp(for: "trent", confirmationCode: try await fixture.latestCode(plugin, for: "trent"), options: nil)
        for _ in 0..<2 { _ = await authError { _ = try await plugin.signIn(username: "trent", password: "Wrong0ne!", options: nil) } }
        let locked = await authError { _ = try await plugin.signIn(username: "trent", password: "Passw0rd!", options: nil) }
        #expect(locked?.errorDescription.hasPrefix("Too many failed sign-in attempts") == true)
        let pool = try SQLiteDatabase(path: fixture.folder + "/users.sqlite")
        let lockedUntil = try await pool.run("SELECT locked_until FROM users WHERE username = 'trent'").first?["locked_until"].real ?? 0
        await pool.close()
        #expect(lockedUntil > Date().timeIntervalSince1970)
        while Date().timeIntervalSince1970 <= lockedUntil + 0.05 { try await Task.sleep(for: .milliseconds(50)) }
        let wrong = await authError { _ = try await plugin.signIn(username: "trent", password: "Wrong0ne!", options: nil) }
        #expect(wrong?.errorDescription == "Incorrect username or password.")
        let database = try SQLiteDatabase(path: fixture.folder + "/users.sqlite")
        let row = try #require(try await database.run("SELECT failed_attempts, locked_until FROM users WHERE username = 'trent'").first)
        await database.close()
        #expect(row["failed_attempts"].integer == 1 && row["locked_until"].real == 0)
        #expect(try await plugin.signIn(username: "trent", password: "Passw0rd!", options: nil).isSignedIn)
        try await fixture.close(plugin)
    }
}
