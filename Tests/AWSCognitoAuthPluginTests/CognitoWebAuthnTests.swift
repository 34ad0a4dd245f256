import AWSCognitoAuthPlugin
import Amplify
import AmplifyTestKit
import Foundation
import Testing

/// WebAuthn credential management against a recorded exchange (moto has none; see Fixtures/README.md).
@Suite("Cognito: listWebAuthnCredentials / deleteWebAuthnCredential")
struct CognitoWebAuthnTests {
    @Test(
        "listWebAuthnCredentials pages with MaxResults and NextToken; deleteWebAuthnCredential sends the id; an unknown credential is resourceNotFound; a page size outside 1 – 20 is refused before any call"
    )
    func listAndDelete() async throws {
        let replay = try await RecordedExchangeTests.Replay("webauthn.json")
        let plugin = replay.plugin
        _ = try await plugin.signIn(username: "bo", password: "Passw0rd!x", options: nil)
        let tooBig = await authError { _ = try await plugin.listWebAuthnCredentials(options: .init(pageSize: 21)) }
        guard case .validation? = tooBig else {
            Issue.record("\(String(describing: tooBig))")
            return
        }
        let first = try await plugin.listWebAuthnCredentials(options: nil)
        let credential = try #require(first.credentials.first as? AWSWebAuthnCredential)
        #expect(credential.credentialId == "cred-1" && credential.friendlyName == "bo's laptop" && credential.relyingPartyId == "app.example.com")
        #expect(credential.createdAt == Date(timeIntervalSince1970: 1_764_547_200))
        #expect(credential.authenticatorTransports == ["internal", "hybrid"])
        let second = try await plugin.listWebAuthnCredentials(options: .init(pageSize: 1, nextToken: first.nextToken))
        #expect(second.credentials.map(\.credentialId) == ["cred-2"] && second.nextToken == nil)
        try await plugin.deleteWebAuthnCredential(credentialId: "cred-1", options: nil)
        let gone = await authError { try await plugin.deleteWebAuthnCredential(credentialId: "cred-1", options: nil) }
        guard case .service(_, _, let underlying as AWSCognitoAuthError)? = gone, underlying == .resourceNotFound else {
            Issue.record("\(String(describing: gone))")
            return
        }
        #expect(await replay.eventNames().filter { $0.contains("WebAuthn") }.count == 5)
        try await replay.close()
    }
}
