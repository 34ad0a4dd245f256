import Amplify
import AmplifyTestKit
import Foundation
import LocalAuthPlugin
import LocalAuthTestSupport
import Testing

@Suite("Local auth: WebAuthn credentials")
struct WebAuthnTests {
    @Test(
        "the local pool registers no passkeys: the signed-in user's list is empty, deleting one is a validation error naming it, and signed out both are signedOut"
    )
    func emptyListAndNotFound() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        let signedOut = await authError { _ = try await plugin.listWebAuthnCredentials(options: nil) }
        guard case .signedOut? = signedOut else {
            Issue.record("\(String(describing: signedOut))")
            return
        }
        try await signUpAndIn(plugin, fixture, "wes")
        let page = try await plugin.listWebAuthnCredentials(options: nil)
        #expect(page.credentials.isEmpty && page.nextToken == nil)
        let missing = await authError { try await plugin.deleteWebAuthnCredential(credentialId: "cred-1", options: nil) }
        #expect(missing?.errorDescription == "There is no WebAuthn credential 'cred-1': the local pool registers no passkeys.")
        guard case .validation? = missing else {
            Issue.record("\(String(describing: missing))")
            return
        }
        #expect(await fixture.eventNames().suffix(2) == ["Auth.listWebAuthnCredentialsAPI", "Auth.deleteWebAuthnCredentialAPI"])
        try await fixture.close(plugin)
    }
}
