import Foundation
import Testing

/// The auth commands, each run as its own process: the session persists between them.
@Suite("amplify auth, hub listen and demo")
struct AuthCommandTests {
    private func folderWithPool() async throws -> URL {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("cli-auth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(#"{"auth": {"plugins": {"localAuthPlugin": {"directory": "pool", "passwordHashCost": 1024}}}}"#.utf8)
            .write(to: folder.appendingPathComponent("amplifyconfiguration.json"))
        return folder
    }

    @Test("sign-up, outbox, confirm, sign-in in separate processes; a later process finds the session; sign-out ends it")
    func persistedAcrossProcesses() async throws {
        let folder = try await folderWithPool()
        defer { try? FileManager.default.removeItem(at: folder) }
        let signUp = try await Tool.run(
            ["auth", "sign-up", "alice", "--email", "alice@example.com", "--password-stdin"], in: folder, input: "Passw0rd!\n")
        #expect(signUp.exitCode == 0)
        #expect(signUp.stdout == "Signed up alice; a confirmation code was sent to a***@e***.com.\n")
        let outbox = try await Tool.run(["--json", "auth", "outbox"], in: folder)
        let messages = try JSONSerialization.jsonObject(with: Data(outbox.stdout.utf8)) as? [[String: String]]
        let code = try #require(messages?.last?["code"])
        #expect(try await Tool.run(["auth", "confirm-sign-up", "alice", code], in: folder).stdout == "alice is confirmed; sign in.\n")
        #expect(
            try await Tool.run(["auth", "sign-in", "alice", "--password-stdin"], in: folder, input: "Passw0rd!\n").stdout == "Signed in as alice.\n")
        let whoami = try await Tool.run(["auth", "whoami"], in: folder)
        #expect(whoami.exitCode == 0)
        #expect(whoami.stdout.hasPrefix("alice ("))
        #expect(try await Tool.run(["auth", "session"], in: folder).stdout.hasPrefix("Signed in; tokens expire at "))
        #expect(try await Tool.run(["auth", "update-attribute", "name", "Alice"], in: folder).exitCode == 0)
        #expect(try await Tool.run(["auth", "attributes"], in: folder).stdout.contains("name=Alice\n"))
        #expect(try await Tool.run(["auth", "sign-out"], in: folder).stdout == "Signed out.\n")
        let after = try await Tool.run(["auth", "whoami"], in: folder)
        #expect(after.exitCode == 1)
        #expect(after.stderr == "error: Nobody is signed in.\nhow to fix: Sign in first.\n")
    }

    @Test(
        "add-to-group puts the group in the next tokens' cognito:groups; token prints the access or ID token; groups lists, remove-from-group takes out"
    )
    func groupsAndToken() async throws {
        let folder = try await folderWithPool()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try await Tool.run(["auth", "token"], in: folder).exitCode == 1)
        _ = try await Tool.run(["auth", "sign-up", "cara", "--email", "cara@example.com", "--password-stdin"], in: folder, input: "Passw0rd!\n")
        let outbox = try await Tool.run(["--json", "auth", "outbox"], in: folder)
        let code = try #require((try JSONSerialization.jsonObject(with: Data(outbox.stdout.utf8)) as? [[String: String]])?.last?["code"])
        _ = try await Tool.run(["auth", "confirm-sign-up", "cara", code], in: folder)
        #expect(try await Tool.run(["auth", "add-to-group", "cara", "admins"], in: folder).stdout == "cara is in admins.\n")
        #expect(try await Tool.run(["auth", "add-to-group", "cara", "bad group"], in: folder).exitCode == 1)
        #expect(try await Tool.run(["auth", "add-to-group", "nobody", "admins"], in: folder).exitCode == 1)
        #expect(try await Tool.run(["auth", "groups", "cara"], in: folder).stdout == "admins\n")
        _ = try await Tool.run(["auth", "sign-in", "cara", "--password-stdin"], in: folder, input: "Passw0rd!\n")
        let access = try await Tool.run(["auth", "token"], in: folder).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let id = try await Tool.run(["auth", "token", "--id"], in: folder).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        func claims(_ token: String) throws -> [String: Any] {
            var payload = String(token.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while payload.count % 4 != 0 { payload += "=" }
            let data = try #require(Data(base64Encoded: payload))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }
        #expect(try claims(access)["token_use"] as? String == "access")
        #expect(try claims(access)["cognito:groups"] as? [String] == ["admins"])
        #expect(try claims(id)["token_use"] as? String == "id")
        #expect(try await Tool.run(["auth", "remove-from-group", "cara", "admins"], in: folder).exitCode == 0)
        #expect(try await Tool.run(["auth", "groups", "cara"], in: folder).stdout.isEmpty)
    }

    @Test("a wrong password exits 1 with the reason; a password is never taken from the command line")
    func errors() async throws {
        let folder = try await folderWithPool()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try await Tool.run(["auth", "sign-up", "bob", "--email", "bob@example.com", "--password-stdin"], in: folder, input: "Passw0rd!\n")
        let unconfirmed = try await Tool.run(["auth", "sign-in", "bob", "--password-stdin"], in: folder, input: "Wrong0ne!\n")
        #expect(unconfirmed.exitCode == 1)
        #expect(unconfirmed.stderr.contains("error: Incorrect username or password."))
        let argv = try await Tool.run(["auth", "sign-in", "bob", "Passw0rd!"], in: folder)
        #expect(argv.exitCode == 2)
        let noTerminal = try await Tool.run(["auth", "sign-in", "bob"], in: folder, input: "")
        #expect(noTerminal.exitCode == 1)
        #expect(noTerminal.stderr.contains("There is no terminal to ask for the password."))
    }

    @Test("hub listen prints one JSON line per event and stops at --count")
    func hubListen() async throws {
        let folder = try await folderWithPool()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try await Tool.run(["hub", "listen", "--channel", "auth", "--count", "1", "--timeout", "5"], in: folder)
        // Nothing happens on the auth channel here but Amplify.configured.
        #expect(run.exitCode == 0)
        #expect(run.stdout == #"{"channel":"auth","data":null,"event":"Amplify.configured"}"# + "\n")
    }

    @Test("amplify demo walks the whole flow and shows the session expiring on its own")
    func demo() async throws {
        let run = try await Tool.run(["demo"])
        #expect(run.exitCode == 0)
        let lines = run.stdout.components(separatedBy: "\n")
        let all = lines.filter { $0.hasPrefix("    hub    ") }.map { $0.dropFirst(11).prefix { $0 != " " } }
        // The timer's refreshes (how many depends on timing: 2 s tokens in a 5 s session) each
        // dispatch Auth.tokenRefreshed; the last one fails before the session expires.
        let events = all.filter { $0 != "Auth.tokenRefreshed" }
        #expect(all.contains("Auth.tokenRefreshed"))
        #expect(
            events == [
                "Auth.signUpAPI", "Auth.confirmSignUpAPI", "Auth.signInAPI", "Auth.signedIn", "Auth.fetchSessionAPI",
                "Auth.fetchUserAttributesAPI", "Auth.tokenRefreshFailed", "Auth.sessionExpired", "Auth.signInAPI", "Auth.signedIn",
                "Auth.signOutAPI", "Auth.signedOut",
            ])
        let states = lines.filter { $0.hasPrefix("    state  ") }.map { String($0.dropFirst(11)) }
        #expect(
            states == [
                "signed out (initial)", "awaiting confirmation of alice", "signed out (initial)", "signed in as alice",
                "signed out (sessionExpired)", "signed in as alice", "signed out (signedOut)",
            ])
        #expect(run.stdout.hasSuffix("Done; the demo's folder was removed.\n"))
    }

    @Test(
        "amplify demo --users 4: four held sessions sign in at once and refresh, one revoked elsewhere expires alone, one signs out, each event naming its user"
    )
    func demoUsers() async throws {
        let run = try await Tool.run(["demo", "--users", "4"])
        #expect(run.exitCode == 0)
        let events = run.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("    hub    ") }.map { String($0.dropFirst(11)) }
        func held(_ name: String) -> [String] {
            events.filter { $0.hasPrefix(name + "  ") && $0.contains(#""scope":"held""#) }.compactMap { line in
                line.range(of: #""username":""#).map { String(line[$0.upperBound...].prefix { $0 != "\"" }) }
            }
        }
        #expect(Set(held("Auth.signedIn")) == ["alice", "bob", "carol", "dave"])
        #expect(Set(held("Auth.tokenRefreshed")) == ["alice", "bob", "carol", "dave"])
        #expect(held("Auth.tokenRefreshFailed") == ["bob"])
        #expect(held("Auth.sessionExpired") == ["bob"])
        #expect(held("Auth.signedOut") == ["carol"])
        #expect(run.stdout.contains("  → alice, dave\n"))
        #expect((try await Tool.run(["demo", "--users", "2"])).exitCode != 0)
    }
}
