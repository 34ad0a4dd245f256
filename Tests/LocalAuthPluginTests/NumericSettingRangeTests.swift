import Amplify
import AmplifyAuthCore
import AmplifySQLite
import AmplifyTestKit
import Foundation
import LocalAuthPlugin
import LocalAuthTestSupport
import Testing

@Suite("Local auth: numeric settings have ranges; numbers beyond them never trap")
struct NumericSettingRangeTests {
    /// (key path, value, the range's ends as the error states them)
    static let outOfRange: [(String, Double, String, String)] = [
        ("accessTokenLifetimeSeconds", 1e20, "1", "86400"),
        ("accessTokenLifetimeSeconds", Double(Int64.max), "1", "86400"),
        ("accessTokenLifetimeSeconds", 1e16, "1", "86400"),
        ("accessTokenLifetimeSeconds", 0, "1", "86400"),
        ("refreshTokenLifetimeSeconds", 1e20, "1", "315360000"),
        ("codeLifetimeSeconds", 1e20, "1", "604800"),
        ("codeMaxAttempts", 1e20, "1", "1000"),
        ("codeMaxAttempts", 0, "1", "1000"),
        ("passwordPolicy.minLength", 1e20, "1", "256"),
        ("lockout.maxFailedAttempts", 1e20, "1", "1000"),
        ("lockout.lockoutSeconds", 1e20, "1", "31536000"),
        ("passwordHashCost", 1e300, "2", "1048576"),
        ("passwordHashCost", 4_503_599_627_370_496, "2", "1048576"),
    ]

    @Test(
        "a number beyond a setting's range is refused at configure time, naming the key path and the range",
        arguments: outOfRange)
    func refusesOutOfRange(_ keyPath: String, _ value: Double, _ low: String, _ high: String) throws {
        let error = #expect(throws: ConfigurationValueError.self) {
            try LocalAuthConfiguration(json: Self.block(keyPath, value))
        }
        #expect(error?.keyPath == keyPath)
        #expect(error?.expected.contains("from \(low) to \(high)") == true, "\(error?.expected ?? "no error")")
    }

    @Test("the ends of every documented range are accepted")
    func acceptsRangeEnds() throws {
        let low = try LocalAuthConfiguration(json: [
            "accessTokenLifetimeSeconds": 1, "refreshTokenLifetimeSeconds": 1, "codeLifetimeSeconds": 1, "codeMaxAttempts": 1,
            "passwordPolicy": ["minLength": 1], "lockout": ["maxFailedAttempts": 1, "lockoutSeconds": 1], "passwordHashCost": 2,
        ])
        #expect(low.accessTokenLifetime == 1 && low.passwordHashCost == 2 && low.maxFailedAttempts == 1)
        let high = try LocalAuthConfiguration(json: [
            "accessTokenLifetimeSeconds": 86400, "refreshTokenLifetimeSeconds": 315_360_000, "codeLifetimeSeconds": 604_800,
            "codeMaxAttempts": 1000, "passwordPolicy": ["minLength": 256],
            "lockout": ["maxFailedAttempts": 1000, "lockoutSeconds": 31_536_000], "passwordHashCost": 1_048_576,
        ])
        #expect(high.refreshTokenLifetime == 315_360_000 && high.lockoutDuration == 31_536_000 && high.passwordHashCost == 1 << 20)
    }

    @Test("a lock stored far beyond Int's range is reported as a lock, not a crash")
    func hugeStoredLock() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        _ = try await plugin.signUp(username: "ivan", password: "Passw0rd!", options: nil)
        let database = try SQLiteDatabase(path: fixture.folder + "/users.sqlite")
        try await database.run("UPDATE users SET locked_until = 1e300 WHERE username = 'ivan'")
        await database.close()
        let locked = await authError { _ = try await plugin.signIn(username: "ivan", password: "Passw0rd!", options: nil) }
        #expect(locked?.errorDescription.hasPrefix("Too many failed sign-in attempts; the account is locked") == true)
        try await fixture.close(plugin)
    }

    @Test("a session whose tokens expire beyond the timer's range is kept (its timer saturates) instead of trapping")
    func farFutureSessionTimer() async throws {
        let fixture = try LocalPoolFixture()
        let keeper = AuthSessionKeeper(pluginKey: "test", refreshLead: 0, hub: { fixture.hub }, eventLoop: { fixture.loop }) { $0 }
        for expiry in [Date(timeIntervalSinceNow: 1e16), Date(timeIntervalSinceNow: 1e300), Date(timeIntervalSince1970: .infinity)] {
            let session = StoredSession(
                username: "far", userId: "far-1", idToken: "i", accessToken: "a", refreshToken: "r",
                accessTokenExpiresAt: expiry, refreshTokenExpiresAt: nil)
            try await keeper.start(session)
            #expect(await keeper.current == session)
        }
        await keeper.shutdown()
        try await fixture.close()
    }

    private static func block(_ keyPath: String, _ value: Double) -> JSONValue {
        let parts = keyPath.split(separator: ".").map(String.init)
        var block: [String: JSONValue] = ["passwordHashCost": 1024]
        if parts.count == 2 {
            block[parts[0]] = .object([parts[1]: .number(value)])
        } else {
            block[keyPath] = .number(value)
        }
        return .object(block)
    }
}
