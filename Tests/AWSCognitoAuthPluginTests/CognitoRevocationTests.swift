import AWSCognitoAuthPlugin
import Amplify
import AmplifyAuthCore
import AmplifyTestKit
import Foundation
import Testing

/// What a sign-out the server handled ends on Cognito, and a refresh that would change the user,
/// against moto.
@Suite("Cognito revocation and one user per context against moto")
struct CognitoRevocationTests {
    @Test("after a sign-out through a context its cookies and bearer token are refused at once; another session of the user goes on")
    func signOutEndsTheSessionsTokens() async throws {
        try await MotoServer.with { moto in
            let fixture = try CognitoFixture(moto: moto, pool: ["name": "revocation", "users": [alice]])
            let plugin = try fixture.plugin()
            let browser = try await CognitoServerContextTests.signedInContext(plugin, "alice")
            let phone = try await CognitoServerContextTests.signedInContext(plugin, "alice")
            let tokens = try #require(await browser.session.current)
            let phoneTokens = try #require(await phone.session.current)
            let header = CognitoJSCookies.header(clientId: fixture.clientId, username: "alice", tokens: tokens)
            #expect(try await plugin.serverContext(cookieHeaders: [header]).user?.username == "alice")

            let request = try await plugin.serverContext(cookieHeaders: [header])
            _ = await request.run { await plugin.signOut(options: nil) }
            for replay in [
                { _ = try await plugin.serverContext(cookieHeaders: [header]) },
                { _ = try await plugin.serverContext(authorization: "Bearer \(tokens.accessToken)", idToken: tokens.idToken) },
            ] {
                let refusal = await authError(replay)
                guard case .notAuthorized(let reason, _, _)? = refusal else {
                    Issue.record("\(String(describing: refusal))")
                    continue
                }
                #expect(reason.contains("signed out"))
            }
            #expect(try await plugin.serverContext(authorization: "Bearer \(phoneTokens.accessToken)").user?.username == "alice")
            try await fixture.close(plugin)
        }
    }

    @Test("a global sign-out through a context refuses every token of the user issued before it; a sign-in after it is accepted")
    func globalSignOutEndsEveryEarlierToken() async throws {
        try await MotoServer.with { moto in
            let fixture = try CognitoFixture(moto: moto, pool: ["name": "global", "users": [alice]])
            let plugin = try fixture.plugin()
            let phone = try await CognitoServerContextTests.signedInContext(plugin, "alice")
            let phoneTokens = try #require(await phone.session.current)
            // `iat` counts whole seconds: the sign-out comes in a later second than the phone's sign-in.
            try await Task.sleep(for: .milliseconds(1100))
            let browser = try await CognitoServerContextTests.signedInContext(plugin, "alice")
            _ = await browser.run { await plugin.signOut(options: AuthSignOutRequest.Options(globalSignOut: true)) }
            #expect(await authError { _ = try await plugin.serverContext(authorization: "Bearer \(phoneTokens.accessToken)") } != nil)
            try await Task.sleep(for: .milliseconds(1100))
            let later = try await CognitoServerContextTests.signedInContext(plugin, "alice")
            let laterTokens = try #require(await later.session.current)
            #expect(try await plugin.serverContext(authorization: "Bearer \(laterTokens.accessToken)").user?.username == "alice")
            try await fixture.close(plugin)
        }
    }

    @Test(
        "a refresh inside a context never changes its user: alice's access token with bob's refresh token is refused, nothing of bob's is sent back")
    func refreshKeepsTheUser() async throws {
        try await MotoServer.with { moto in
            let fixture = try CognitoFixture(moto: moto, pool: ["name": "mixed", "users": [alice, bob]])
            let plugin = try fixture.plugin()
            let aliceTokens = try #require(await CognitoServerContextTests.signedInContext(plugin, "alice").session.current)
            let bobTokens = try #require(await CognitoServerContextTests.signedInContext(plugin, "bob").session.current)
            let context = try await plugin.serverContext(authorization: "Bearer \(aliceTokens.accessToken)", refreshToken: bobTokens.refreshToken)
            let refusal = await authError { _ = try await context.run { try await Amplify.Auth.fetchAuthSession(options: .forceRefresh()) } }
            let refreshed = await authError { _ = try await context.session.refresh() }
            guard case .notAuthorized(let reason, _, _)? = refreshed else {
                Issue.record("\(String(describing: refreshed)) \(String(describing: refusal))")
                return
            }
            #expect(reason.contains("another user"))
            #expect(context.user?.username == "alice")
            #expect(await context.responseCookies().allSatisfy { !$0.contains("bob") })
            try await fixture.close(plugin)
        }
    }
}
