import AWSCognitoAuthPlugin
import AWSPluginsCore
import Amplify
import AmplifyTestKit
import Foundation
import Testing

@Suite("Cognito: federateToIdentityPool / clearFederationToIdentityPool against moto's identity pool")
struct CognitoFederationTests {
    @Test(
        "a provider's token gives the identity's id and credentials (GetId and GetCredentialsForIdentity with Logins); the session is then signed in without user pool tokens, and signIn is refused until the federation is cleared"
    )
    func federateAndClear() async throws {
        try await MotoServer.with { moto in
            let fixture = try CognitoFixture(moto: moto, pool: ["name": "federation", "users": [alice]], identityPool: true)
            let plugin = try fixture.plugin()
            let result = try await plugin.federateToIdentityPool(withProviderToken: "google-id-token", for: .google)
            #expect(result.identityId.hasPrefix("us-east-1:"))
            #expect(!result.credentials.accessKeyId.isEmpty && result.credentials.sessionToken != nil)

            let session = try #require(try await plugin.fetchAuthSession(options: nil) as? AWSAuthCognitoSession)
            #expect(session.isSignedIn)
            #expect(try session.getIdentityId().get() == result.identityId)
            guard case .failure(.invalidState(let description, _, _)) = session.userPoolTokensResult else {
                Issue.record("\(session.userPoolTokensResult)")
                return
            }
            #expect(description == "Users Federated to Identity Pool do not have User Pool access.")
            #expect(try await plugin.identityId() == result.identityId)
            let refused = await authError { _ = try await plugin.signIn(username: "alice", password: "Secr3t!pass", options: nil) }
            #expect(refused?.errorDescription == "The session is federated to the identity pool, so no user pool user can sign in.")

            try await plugin.clearFederationToIdentityPool()
            #expect(try await plugin.fetchAuthSession(options: nil).isSignedIn == false)
            let twice = await authError { try await plugin.clearFederationToIdentityPool() }
            guard case .invalidState? = twice else {
                Issue.record("\(String(describing: twice))")
                return
            }
            #expect(
                await fixture.eventNames().filter { $0.contains("ederat") } == [
                    HubPayload.EventName.Auth.federateToIdentityPoolAPI, HubPayload.EventName.Auth.clearedFederationToIdentityPoolAPI,
                    HubPayload.EventName.Auth.clearedFederationToIdentityPoolAPI,
                ])

            // Signed in to the user pool: federation is refused.
            _ = try await plugin.signIn(username: "alice", password: "Secr3t!pass", options: nil)
            let signedIn = await authError { _ = try await plugin.federateToIdentityPool(withProviderToken: "google-id-token", for: .google) }
            guard case .invalidState? = signedIn else {
                Issue.record("\(String(describing: signedIn))")
                return
            }
            try await fixture.close(plugin)
        }
    }

    @Test("a developer-provided identity id is used as it is (no GetId); without an identity pool federation is a configuration error")
    func developerIdentityAndNoPool() async throws {
        try await MotoServer.with { moto in
            let fixture = try CognitoFixture(moto: moto, pool: ["name": "developer", "users": [alice]], identityPool: true)
            let plugin = try fixture.plugin()
            let first = try await plugin.federateToIdentityPool(withProviderToken: "token-1", for: .custom("login.example.com"))
            try await plugin.clearFederationToIdentityPool()
            let again = try await plugin.federateToIdentityPool(
                withProviderToken: "token-2", for: .custom("login.example.com"), options: .init(developerProvidedIdentityID: first.identityId))
            #expect(again.identityId == first.identityId)

            let noPool = try CognitoFixture(moto: moto, pool: ["name": "nopool", "users": []])
            let userPoolOnly = try noPool.plugin()
            let missing = await authError { _ = try await userPoolOnly.federateToIdentityPool(withProviderToken: "t", for: .apple) }
            guard case .configuration? = missing else {
                Issue.record("\(String(describing: missing))")
                return
            }
            try await noPool.close(userPoolOnly)
            try await fixture.close(plugin)
        }
    }
}
