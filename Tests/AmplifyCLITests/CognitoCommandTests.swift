import Amplify
import AmplifyTestKit
import Foundation
import Testing

/// `amplify config check` and `amplify auth …` with the configuration file the Amplify CLI
/// writes, pointed at moto_server through the user pool's `Endpoint`.
@Suite("amplify with a CLI-shaped Cognito configuration")
struct CognitoCommandTests {
    /// A folder with an `amplifyconfiguration.json` as the Amplify CLI writes it (plus `Endpoint`).
    private func folder(_ moto: MotoServer, _ seeded: JSONValue, oauth: String? = nil) throws -> URL {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("cli-cognito-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let oauthBlock = oauth.map { #", "OAuth": \#($0)"# } ?? ""
        let file = """
            {
              "UserAgent": "aws-amplify-cli/2.0",
              "Version": "1.0",
              "auth": {
                "plugins": {
                  "awsCognitoAuthPlugin": {
                    "UserAgent": "aws-amplify/cli",
                    "Version": "0.1.0",
                    "IdentityManager": {"Default": {}},
                    "CognitoUserPool": {"Default": {
                      "PoolId": "\(seeded["userPoolId"]?.stringValue ?? "")",
                      "AppClientId": "\(seeded["clientId"]?.stringValue ?? "")",
                      "Region": "us-east-1",
                      "Endpoint": "\(moto.endpoint.absoluteString)"
                    }},
                    "Auth": {"Default": {"authenticationFlowType": "USER_SRP_AUTH"\(oauthBlock)}}
                  }
                }
              }
            }
            """
        try Data(file.utf8).write(to: folder.appendingPathComponent("amplifyconfiguration.json"))
        return folder
    }

    @Test("config check describes the Cognito plugin; sign-in (SRP), whoami, session, attributes and sign-out work across processes")
    func signInAcrossProcesses() async throws {
        try await MotoServer.with { moto in
            let seeded = try moto.seed([
                "userPool": [
                    "name": "cli",
                    "users": [
                        ["username": "alice", "password": "Secr3t!pass", "attributes": ["email": "alice@example.com"]]
                    ],
                ]
            ])
            let folder = try folder(moto, seeded)
            defer { try? FileManager.default.removeItem(at: folder) }
            let check = try await Tool.run(["config", "check"], in: folder)
            #expect(check.exitCode == 0)
            #expect(check.stdout.contains("awsCognitoAuthPlugin"))
            #expect(check.stdout.contains("user pool: \(seeded["userPoolId"]?.stringValue ?? "?")"))
            #expect(check.stdout.contains("sign-in flow: USER_SRP_AUTH"))

            #expect(
                try await Tool.run(["auth", "sign-in", "alice", "--password-stdin"], in: folder, input: "Secr3t!pass\n").stdout
                    == "Signed in as alice.\n")
            let whoami = try await Tool.run(["auth", "whoami"], in: folder)
            #expect(whoami.stdout.hasPrefix("alice ("))
            #expect(try await Tool.run(["auth", "session"], in: folder).stdout.hasPrefix("Signed in; tokens expire at "))
            #expect(try await Tool.run(["auth", "attributes"], in: folder).stdout.contains("email=alice@example.com"))
            let signOut = try await Tool.run(["auth", "sign-out"], in: folder)
            #expect(signOut.exitCode == 0)
            #expect(signOut.stdout.hasPrefix("Signed out here, but the refresh token was not revoked"))
            #expect(try await Tool.run(["auth", "whoami"], in: folder).exitCode == 1)
        }
    }

    @Test("A new-password challenge is answered from the next line of standard input")
    func challengeFromStandardInput() async throws {
        try await MotoServer.with { moto in
            let seeded = try moto.seed(["userPool": ["name": "cli", "users": [["username": "newbie", "temporaryPassword": "Temp0rary!x"]]]])
            let folder = try folder(moto, seeded)
            defer { try? FileManager.default.removeItem(at: folder) }
            let run = try await Tool.run(["auth", "sign-in", "newbie", "--password-stdin"], in: folder, input: "Temp0rary!x\nCh0sen!passw0rd\n")
            #expect(run.stdout == "Signed in as newbie.\n")
            let missing = try await Tool.run(["auth", "sign-in", "newbie", "--password-stdin"], in: folder, input: "Ch0sen!passw0rd\n")
            #expect(missing.exitCode == 1)
            #expect(missing.stderr.contains("already signed in"))
        }
    }

    @Test("verify-token accepts moto's ID token and refuses it as an access token, with the reason")
    func verifyToken() async throws {
        try await MotoServer.with { moto in
            let seeded = try moto.seed(["userPool": ["name": "cli", "users": [["username": "alice", "password": "Secr3t!pass"]]]])
            let folder = try folder(moto, seeded)
            defer { try? FileManager.default.removeItem(at: folder) }
            let tokens = try moto.tokens(
                userPoolId: seeded["userPoolId"]?.stringValue ?? "", clientId: seeded["clientId"]?.stringValue ?? "", username: "alice",
                password: "Secr3t!pass")
            let idToken = try #require(tokens["IdToken"]?.stringValue)
            let valid = try await Tool.run(["auth", "verify-token", idToken], in: folder)
            #expect(valid.exitCode == 0)
            #expect(valid.stdout.hasPrefix("Valid id token of alice (sub "))
            let graced = try await Tool.run(["auth", "verify-token", idToken, "--grace-seconds", "30"], in: folder)
            #expect(graced.exitCode == 0)
            for bad in ["-1", "nan", "100000"] {
                let refused = try await Tool.run(["auth", "verify-token", idToken, "--grace-seconds=\(bad)"], in: folder)
                #expect(refused.exitCode != 0, "\(bad)")
                #expect(refused.stderr.contains("--grace-seconds must be a number of seconds from 0 to 86400"), "\(bad): \(refused.stderr)")
            }
            let wrongUse = try await Tool.run(["auth", "verify-token", idToken, "--access"], in: folder)
            #expect(wrongUse.exitCode == 1)
            #expect(wrongUse.stderr.contains("the token is an 'id' token"))
        }
    }

    @Test("verify-token reads the token from standard input with '-' or no argument, so it never shows in ps")
    func verifyTokenFromStandardInput() async throws {
        try await MotoServer.with { moto in
            let seeded = try moto.seed(["userPool": ["name": "cli", "users": [["username": "alice", "password": "Secr3t!pass"]]]])
            let folder = try folder(moto, seeded)
            defer { try? FileManager.default.removeItem(at: folder) }
            let tokens = try moto.tokens(
                userPoolId: seeded["userPoolId"]?.stringValue ?? "", clientId: seeded["clientId"]?.stringValue ?? "", username: "alice",
                password: "Secr3t!pass")
            let idToken = try #require(tokens["IdToken"]?.stringValue)
            let dash = try await Tool.run(["auth", "verify-token", "-"], in: folder, input: idToken + "\n")
            #expect(dash.exitCode == 0, "\(dash.stderr)")
            #expect(dash.stdout.hasPrefix("Valid id token of alice (sub "))
            let none = try await Tool.run(["auth", "verify-token"], in: folder, input: idToken)
            #expect(none.exitCode == 0, "\(none.stderr)")
            #expect(none.stdout.hasPrefix("Valid id token of alice (sub "))
            let access = try await Tool.run(["auth", "verify-token", "--access"], in: folder, input: idToken)
            #expect(access.exitCode == 1)
            #expect(access.stderr.contains("the token is an 'id' token"))
            let empty = try await Tool.run(["auth", "verify-token", "-"], in: folder, input: "")
            #expect(empty.exitCode != 0)
            #expect(empty.stderr.contains("standard input"))
        }
    }

    @Test("sign-in --web prints the hosted UI URL, the --browser command follows it, and the loopback redirect signs in")
    func webSignIn() async throws {
        try await MotoServer.with { moto in
            let seeded = try moto.seed(["userPool": ["name": "cli"]])
            let hostedUI = try await LocalHTTPServer.start()
            defer { hostedUI.stop() }
            let redirect = "http://127.0.0.1:\(try RedisServer.freePort())/callback"
            let oauth =
                #"{"WebDomain": "\#(hostedUI.url("").absoluteString)", "AppClientId": "\#(seeded["clientId"]?.stringValue ?? "")", "SignInRedirectURI": "\#(redirect)", "SignOutRedirectURI": "\#(redirect)", "Scopes": ["openid"]}"#
            let folder = try folder(moto, seeded, oauth: oauth)
            defer { try? FileManager.default.removeItem(at: folder) }
            let run = try await Tool.run(["auth", "sign-in", "--web", "--browser", "curl -fsSL"], in: folder)
            #expect(run.exitCode == 0)
            #expect(run.stderr.contains("Open this URL to sign in:\n  \(hostedUI.url("/oauth2/authorize").absoluteString)?"))
            #expect(run.stdout == "Signed in as carol through the hosted UI.\n")
            #expect(try await Tool.run(["auth", "whoami"], in: folder).stdout == "carol (hosted-sub)\n")
        }
    }
}
