import Amplify
import AmplifyTestKit
import Foundation
import Testing

@Suite("Examples/TokenGate")
struct TokenGateExampleTests {
    @Test("the gate admits moto's access token and refuses an ID token, a tampered token, a missing header and garbage")
    func decisions() async throws {
        try await MotoServer.with { moto in
            let forger = "eve\r\nallow root (sub 0)"
            let seeded = try moto.seed([
                "userPool": [
                    "name": "gate",
                    "users": [["username": "alice", "password": "Secr3t!pass"], ["username": .string(forger), "password": "Secr3t!pass"]],
                ]
            ])
            let poolId = seeded["userPoolId"]?.stringValue ?? ""
            let clientId = seeded["clientId"]?.stringValue ?? ""
            let tokens = try moto.tokens(userPoolId: poolId, clientId: clientId, username: "alice", password: "Secr3t!pass")
            let access = try #require(tokens["AccessToken"]?.stringValue)
            let id = try #require(tokens["IdToken"]?.stringValue)
            var parts = access.split(separator: ".").map(String.init)
            parts[1] = String(parts[1].reversed())
            let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("token-gate-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("amplifyconfiguration.json")
            try Data(
                """
                {"auth": {"plugins": {"awsCognitoAuthPlugin": {
                  "CognitoUserPool": {"Default": {"PoolId": "\(poolId)", "AppClientId": "\(clientId)", "Region": "us-east-1", "Endpoint": "\(moto.endpoint.absoluteString)"}},
                  "Auth": {"Default": {"authenticationFlowType": "USER_SRP_AUTH"}}}}}}
                """.utf8
            ).write(to: file)
            // A username with CR/LF must not print as a second decision.
            let forgerAccess = try #require(
                try moto.tokens(userPoolId: poolId, clientId: clientId, username: forger, password: "Secr3t!pass")["AccessToken"]?.stringValue)
            let input = [
                "Bearer \(access)", "Bearer \(id)", "Bearer " + parts.joined(separator: "."), "", "Basic dXNlcjpwYXNz", "Bearer garbage",
                "Bearer \(forgerAccess)",
            ]
            let run = try await ProductRunner.run(
                "TokenGate", [], in: folder, environment: ProcessInfo.processInfo.environment.merging(["AMPLIFY_CONFIG": file.path]) { $1 },
                input: input.joined(separator: "\n") + "\n")
            #expect(run.exitCode == 0)
            let lines = run.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 7)
            #expect(lines.first?.hasPrefix("allow alice (sub ") == true)
            #expect(lines.dropFirst().first == "deny: the token is an 'id' token")
            #expect(lines.dropFirst(2).first?.hasPrefix("deny: ") == true)
            #expect(
                Array(lines.dropFirst(3).prefix(3)) == ["deny: no bearer token", "deny: no bearer token", "deny: the token is not a well-formed JWT"])
            #expect(lines.last?.hasPrefix(#"allow eve\r\nallow root (sub 0) (sub "#) == true, "\(lines)")
        }
    }
}
