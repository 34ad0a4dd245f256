import Amplify
import AmplifyAuthCore
import AmplifyCrypto
import AmplifySQLite
import AmplifyTestKit
import Foundation
import LocalAuthPlugin
import LocalAuthTestSupport
import Testing

/// Usernames that look alike, codes that could be farmed, and answers that could tell which
/// users exist, on the local pool.
@Suite("Local pool account security")
struct AccountSecurityTests {
    @Test(
        "ten invisible code points in a username are refused with the code point named",
        arguments: [
            0x00AD, 0x034F, 0xFE0F, 0x3164, 0x1160, 0xE0062, 0x180E, 0x2800, 0x17B4, 0xFFF9,
        ])
    func invisibleCodePoints(value: UInt32) async throws {
        let fixture = try LocalPoolFixture(["signUpRequiresConfirmation": false])
        let plugin = try fixture.plugin()
        let scalar = try #require(Unicode.Scalar(value))
        let name = "b" + String(Character(scalar)) + "en"
        let error = await authError { _ = try await plugin.signUp(username: name, password: "Passw0rd!", options: nil) }
        guard case .validation(let field, let description, _, _)? = error else {
            Issue.record("U+\(String(value, radix: 16)): \(String(describing: error))")
            return
        }
        #expect(field == "username")
        #expect(description == "The username contains an invisible or text-direction character (U+\(String(value, radix: 16, uppercase: true))).")
        try await fixture.close(plugin)
    }

    @Test("names that render like an existing user are that user: fullwidth ｂｅｎ, JOSÉ beside josé; either form signs in")
    func lookAlikesAreOneUser() async throws {
        let fixture = try LocalPoolFixture(["signUpRequiresConfirmation": false])
        let plugin = try fixture.plugin()
        _ = try await plugin.signUp(username: "ben", password: "Passw0rd!", options: nil)
        _ = try await plugin.signUp(username: "jos\u{E9}", password: "Passw0rd!", options: nil)
        for lookAlike in ["\u{FF42}\u{FF45}\u{FF4E}", "BEN", "JOS\u{C9}", "JOSE\u{301}", "Jos\u{E9}"] {
            let error = await authError { _ = try await plugin.signUp(username: lookAlike, password: "Passw0rd!", options: nil) }
            guard case .validation(_, let description, _, _)? = error else {
                Issue.record("\(lookAlike): \(String(describing: error))")
                continue
            }
            #expect(description.contains("already exists"))
        }
        _ = try await plugin.signIn(username: "JOS\u{C9}", password: "Passw0rd!", options: nil)
        #expect(try await plugin.getCurrentUser().username == "jos\u{E9}")
        _ = await plugin.signOut(options: nil)
        _ = try await plugin.signIn(username: "\u{FF42}\u{FF45}\u{FF4E}", password: "Passw0rd!", options: nil)
        #expect(try await plugin.getCurrentUser().username == "ben")
        try await fixture.close(plugin)
    }

    @Test(
        "symbols outside ASCII and characters with a compatibility form are refused; letters of any script, digits and ASCII punctuation are not",
        arguments: [
            ("a\u{2665}b", false), ("\u{FB01}x", false), ("x\u{2460}", false), ("x\u{B2}", false), ("\u{5F20}\u{4F1F}", true),
            ("\u{C9}lodie.d-1_2@ex.com", true), ("\u{43C}\u{438}\u{440}", true),
        ])
    func identifierClass(name: String, allowed: Bool) async throws {
        let fixture = try LocalPoolFixture(["signUpRequiresConfirmation": false])
        let plugin = try fixture.plugin()
        let error = await authError { _ = try await plugin.signUp(username: name, password: "Passw0rd!", options: nil) }
        if allowed {
            #expect(error == nil, "\(String(describing: error))")
        } else {
            guard case .validation(_, let description, _, _)? = error else {
                Issue.record("\(name): \(String(describing: error))")
                return
            }
            #expect(description.contains("usernames may not have"))
        }
        try await fixture.close(plugin)
    }

    @Test("a pool made before the rule keeps working: two users whose names now compare equal each sign in by their exact name")
    func olderPoolsKeepTheirUsers() async throws {
        let fixture = try LocalPoolFixture(["signUpRequiresConfirmation": false])
        let plugin = try fixture.plugin()
        _ = try await plugin.signUp(username: "jos\u{E9}", password: "Passw0rd!", options: nil)
        await plugin.reset()
        // What an older version allowed (NOCASE folds ASCII only): JOSÉ beside josé, made before
        // usernames had keys.
        let database = try SQLiteDatabase(path: fixture.folder + "/users.sqlite")
        try await database.run(
            "INSERT INTO users (sub, username, password_hash, password_salt, confirmed, created_at) SELECT 'legacy-sub', 'JOS\u{C9}', password_hash, password_salt, 1, created_at FROM users"
        )
        try await database.run("UPDATE users SET username_key = NULL")
        try await database.run("PRAGMA user_version = 3")
        await database.close()

        let reopened = try fixture.plugin()
        _ = try await reopened.signIn(username: "JOS\u{C9}", password: "Passw0rd!", options: nil)
        #expect(try await reopened.getCurrentUser().userId == "legacy-sub")
        _ = await reopened.signOut(options: nil)
        _ = try await reopened.signIn(username: "jos\u{E9}", password: "Passw0rd!", options: nil)
        #expect(try await reopened.getCurrentUser().userId != "legacy-sub")
        try await fixture.close(reopened)
    }

    @Test("codes cannot be farmed: the eleventh code in the window (sign-up's included) is refused with LimitExceeded's wording")
    func codeRequestsAreLimited() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        _ = try await plugin.signUp(
            username: "pending", password: "Passw0rd!",
            options: AuthSignUpRequest.Options(userAttributes: [AuthUserAttribute(.email, value: "p@example.com")]))
        try await signUpAndIn(plugin, fixture, "ben")
        // The sign-up's code counts: nine resets, then the limit.
        for _ in 0..<9 { _ = try await plugin.resetPassword(for: "ben", options: nil) }
        let refused = await authError { _ = try await plugin.resetPassword(for: "ben", options: nil) }
        guard case .service(let description, _, _)? = refused else {
            Issue.record("\(String(describing: refused))")
            return
        }
        #expect(description.hasPrefix("Attempt limit exceeded"))
        // The sign-up sent one code already: nine more, then the limit.
        for _ in 0..<9 { _ = try await plugin.resendSignUpCode(for: "pending", options: nil) }
        #expect(
            await authError { _ = try await plugin.resendSignUpCode(for: "pending", options: nil) }.map { "\($0)".contains("Attempt limit exceeded") }
                == true)
        try await fixture.close(plugin)
    }

    /// The stated bound (Docs/Reliability.md): per window, at most min(limit × codeMaxAttempts,
    /// guesses before the lock) wrong codes are checked for a user; each is right with
    /// probability 1 in 10^6.
    @Test("an attacker's guesses at a user's codes stop at the lockout (5 with the defaults), and without it at codeRequests.limit × codeMaxAttempts")
    func guessesAreBounded() async throws {
        // (The sign-up's code counts against the limit: 2 reset codes × 5 guesses in the second case.)
        for (settings, bound) in [([String: JSONValue](), 5), (["lockout": ["maxFailedAttempts": 1000], "codeRequests": ["limit": 3]], (3 - 1) * 5)] {
            let fixture = try LocalPoolFixture(settings)
            let plugin = try fixture.plugin()
            try await signUpAndIn(plugin, fixture, "ben")
            _ = await plugin.signOut(options: nil)
            var checked = 0
            attack: for _ in 0..<100 {
                guard (try? await plugin.resetPassword(for: "ben", options: nil)) != nil else { break }
                for _ in 0..<100 {
                    let error = await authError {
                        try await plugin.confirmResetPassword(for: "ben", with: "N3wPassword", confirmationCode: "000000", options: nil)
                    }
                    guard case .validation(_, let description, _, _)? = error else { break attack }
                    if description.contains("no pending code") { break }
                    checked += 1
                }
            }
            #expect(checked == bound, "\(settings)")
            try await fixture.close(plugin)
        }
    }

    @Test("wrong codes lock the account as wrong passwords do: the right password is then refused until the lock ends")
    func wrongCodesLockTheAccount() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        try await signUpAndIn(plugin, fixture, "ben")
        _ = await plugin.signOut(options: nil)
        _ = try await plugin.resetPassword(for: "ben", options: nil)
        for _ in 0..<4 {
            _ = await authError { try await plugin.confirmResetPassword(for: "ben", with: "N3wPassword", confirmationCode: "000000", options: nil) }
        }
        _ = try await plugin.resetPassword(for: "ben", options: nil)
        _ = await authError { try await plugin.confirmResetPassword(for: "ben", with: "N3wPassword", confirmationCode: "000000", options: nil) }
        let locked = await authError { _ = try await plugin.signIn(username: "ben", password: "Passw0rd!", options: nil) }
        guard case .notAuthorized(let description, _, _)? = locked else {
            Issue.record("\(String(describing: locked))")
            return
        }
        #expect(description.contains("locked"))
        try await fixture.close(plugin)
    }

    /// Every answer for a name nobody has, next to the same call's answer for a user.
    @Test("which users exist is not revealed: reset-password, resend-code, confirming and signing in answer alike for a name nobody has")
    func userExistenceIsNotRevealed() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        try await signUpAndIn(plugin, fixture, "ben@example.com")
        _ = try await plugin.signUp(
            username: "pending@example.com", password: "Passw0rd!",
            options: AuthSignUpRequest.Options(userAttributes: [AuthUserAttribute(.email, value: "pending@example.com")]))
        _ = await plugin.signOut(options: nil)

        let real = try await plugin.resetPassword(for: "ben@example.com", options: nil)
        let fake = try await plugin.resetPassword(for: "bob@example.com", options: nil)
        guard case .confirmResetPasswordWithCode(let realDetails, _) = real.nextStep,
            case .confirmResetPasswordWithCode(let fakeDetails, _) = fake.nextStep
        else {
            Issue.record("\(real.nextStep) \(fake.nextStep)")
            return
        }
        #expect(realDetails == fakeDetails)
        #expect(
            try await plugin.resendSignUpCode(for: "pending@example.com", options: nil)
                == plugin.resendSignUpCode(for: "penny@example.com", options: nil))

        func answers(_ username: String) async -> [String] {
            var seen: [String] = []
            for _ in 0..<6 {
                let error = await authError {
                    try await plugin.confirmResetPassword(for: username, with: "N3wPassword", confirmationCode: "000000", options: nil)
                }
                seen.append(String(describing: error))
            }
            for _ in 0..<2 {
                seen.append(
                    String(describing: await authError { _ = try await plugin.signIn(username: username, password: "Wr0ngPass", options: nil) }))
            }
            return seen.map { $0.replacingOccurrences(of: #"\d+ more seconds"#, with: "N more seconds", options: .regularExpression) }
        }
        #expect(await answers("ben@example.com") == answers("bob@example.com"))
        try await fixture.close(plugin)
    }

    @Test("with preventUserExistenceErrors off, a name nobody has is named as such")
    func userExistenceErrorsWhenAskedFor() async throws {
        let fixture = try LocalPoolFixture(["preventUserExistenceErrors": false])
        let plugin = try fixture.plugin()
        let error = await authError { _ = try await plugin.resetPassword(for: "nobody", options: nil) }
        guard case .validation(_, let description, _, _)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(description == "There is no user named 'nobody'.")
        try await fixture.close(plugin)
    }
}
