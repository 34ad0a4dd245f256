import Amplify
import AmplifySQLite
import AmplifyTestKit
import Foundation
import LocalAuthPlugin
import LocalAuthTestSupport
import Testing

@Suite("Local pool usernames")
struct UsernameNormalisationTests {
    @Test("a username typed precomposed or decomposed is one user: the second sign-up is refused and either form signs in")
    func canonicalEquivalentNamesAreOneUser() async throws {
        let fixture = try LocalPoolFixture(["signUpRequiresConfirmation": false])
        let plugin = try fixture.plugin()
        let precomposed = "jos\u{E9}"
        let decomposed = "jose\u{301}"
        #expect(precomposed.unicodeScalars.count != decomposed.unicodeScalars.count)
        _ = try await plugin.signUp(username: precomposed, password: "Passw0rd!", options: nil)
        let duplicate = await authError { _ = try await plugin.signUp(username: decomposed, password: "Passw0rd!", options: nil) }
        guard case .validation(let field, let description, _, _) = duplicate else {
            Issue.record("\(String(describing: duplicate))")
            return
        }
        #expect(field == "username")
        #expect(description.contains("already exists"))
        let result = try await plugin.signIn(username: decomposed, password: "Passw0rd!", options: nil)
        #expect(result.isSignedIn)
        #expect(try await plugin.getCurrentUser().username == precomposed)
        try await fixture.close(plugin)
    }

    @Test("text-direction overrides, zero-width and control characters are refused in a new username")
    func invisibleCharactersRefused() async throws {
        let fixture = try LocalPoolFixture(["signUpRequiresConfirmation": false])
        let plugin = try fixture.plugin()
        for (name, code) in [
            ("\u{202E}nimda", "202E"), ("ad\u{200B}min", "200B"), ("ad\u{2066}min", "2066"), ("a\u{7}b", "7"), ("\u{FEFF}root", "FEFF"),
        ] {
            let error = await authError { _ = try await plugin.signUp(username: name, password: "Passw0rd!", options: nil) }
            guard case .validation(let field, let description, _, _) = error else {
                Issue.record("\(name): \(String(describing: error))")
                continue
            }
            #expect(field == "username")
            #expect(description == "The username contains an invisible or text-direction character (U+\(code)).")
        }
        try await fixture.close(plugin)
    }
}

@Suite("Local pool refresh tokens")
struct RefreshTokenPruningTests {
    @Test("revoked and expired refresh tokens are deleted when new ones are issued: twenty sign-ins and sign-outs leave one row")
    func revokedTokensDoNotAccumulate() async throws {
        let fixture = try LocalPoolFixture(["signUpRequiresConfirmation": false])
        let plugin = try fixture.plugin()
        _ = try await plugin.signUp(username: "pruned", password: "Passw0rd!", options: nil)
        for _ in 0..<20 {
            _ = try await plugin.signIn(username: "pruned", password: "Passw0rd!", options: nil)
            _ = await plugin.signOut(options: nil)
        }
        _ = try await plugin.signIn(username: "pruned", password: "Passw0rd!", options: nil)
        let database = try SQLiteDatabase(path: fixture.folder + "/users.sqlite")
        let rows = try await database.run("SELECT revoked FROM refresh_tokens")
        await database.close()
        #expect(rows.count == 1)
        #expect(rows.first?["revoked"].integer == 0)
        #expect(try await plugin.fetchAuthSession(options: .forceRefresh()).isSignedIn)
        try await fixture.close(plugin)
    }
}
