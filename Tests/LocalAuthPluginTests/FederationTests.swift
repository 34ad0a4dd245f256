import Amplify
import AmplifyTestKit
import Foundation
import LocalAuthPlugin
import LocalAuthTestSupport
import Testing

@Suite("Local auth: federation to an identity pool")
struct LocalFederationTests {
    @Test("the local pool has no identity pool: federateToIdentityPool and clearFederationToIdentityPool are a configuration error saying so")
    func noIdentityPool() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        let federate = await authError { _ = try await plugin.federateToIdentityPool(withProviderToken: "token", for: .google) }
        guard case .configuration(let description, _, _)? = federate else {
            Issue.record("\(String(describing: federate))")
            return
        }
        #expect(description.hasPrefix("The local auth plugin has no identity pool"))
        let clear = await authError { _ = try await plugin.clearFederationToIdentityPool() }
        guard case .configuration? = clear else {
            Issue.record("\(String(describing: clear))")
            return
        }
        try await fixture.close(plugin)
    }
}
