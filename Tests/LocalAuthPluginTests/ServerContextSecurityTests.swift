import Amplify
import AmplifyAuthCore
import AmplifySQLite
import AmplifyTestKit
import Foundation
import LocalAuthPlugin
import Testing

/// What a server context promises its users on the local pool, against requests that mix one
/// user's tokens with another's or replay a signed-out session.
@Suite("Server context security on the local pool")
struct ServerContextSecurityTests {
    /// A request of ben whose refresh-token cookie carries ann's refresh token.
    private static func mixedCookies(ben: StoredSession, ann: StoredSession, clientId: String) -> [String] {
        let mixed = StoredSession(
            username: ben.username, userId: ben.userId, idToken: ben.idToken, accessToken: ben.accessToken, refreshToken: ann.refreshToken,
            accessTokenExpiresAt: ben.accessTokenExpiresAt, refreshTokenExpiresAt: nil)
        let pairs = AmplifyJSCookies.setCookies(clientId: clientId, session: mixed).map { $0.split(separator: ";")[0] }
        return [pairs.joined(separator: "; ")]
    }

    @Test("a refresh inside a context never changes its user: ben's access token with ann's refresh token is refused, and ann's session goes on")
    func refreshKeepsTheUser() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        let ben = try #require(await ServerContextTests.contextUser(plugin, fixture, "ben").session.current)
        let ann = try #require(await ServerContextTests.contextUser(plugin, fixture, "ann").session.current)
        let clientId = try plugin.contextTenant().clientId

        let context = try await plugin.serverContext(cookieHeaders: Self.mixedCookies(ben: ben, ann: ann, clientId: clientId))
        #expect(context.user?.username == "ben")
        let refusal = await authError { _ = try await context.session.refresh() }
        guard case .notAuthorized(let reason, _, _)? = refusal else { Issue.record("\(String(describing: refusal))"); return }
        #expect(reason.contains("another user"))
        #expect(context.user?.username == "ben")
        #expect(try await context.run { try await plugin.getCurrentUser().username } == "ben")
        // Nothing of ann's goes back in the response.
        #expect(await context.responseCookies().allSatisfy { !$0.contains("ann") })

        // Ann's refresh token was not spent: her own request refreshes with it.
        let annContext = try await plugin.serverContext(authorization: "Bearer \(ann.accessToken)", refreshToken: ann.refreshToken)
        let renewed = try await annContext.session.refresh()
        #expect(renewed.username == "ann")
        try await fixture.close(plugin)
    }

    @Test("an expired access token of ben with ann's refresh token is refused, and ann's refresh token is not spent")
    func expiredPathDoesNotSpendAnotherUsersToken() async throws {
        let fixture = try LocalPoolFixture(["accessTokenLifetimeSeconds": 1])
        let plugin = try fixture.plugin()
        let ben = try #require(await ServerContextTests.contextUser(plugin, fixture, "ben").session.current)
        let ann = try #require(await ServerContextTests.contextUser(plugin, fixture, "ann").session.current)
        try await Task.sleep(for: .milliseconds(2100))
        let refusal = await authError {
            _ = try await plugin.serverContext(authorization: "Bearer \(ben.accessToken)", refreshToken: ann.refreshToken)
        }
        guard case .notAuthorized(let reason, _, _)? = refusal else { Issue.record("\(String(describing: refusal))"); return }
        #expect(reason.contains("another user"))
        let annContext = try await plugin.serverContext(authorization: "Bearer \(ann.accessToken)", refreshToken: ann.refreshToken)
        #expect(annContext.user?.username == "ann")
        try await fixture.close(plugin)
    }

    @Test("after a sign-out through a context, replaying its cookies or its bearer token is refused at once, not at the token's expiry")
    func signOutEndsTheTokens() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        let context = try await ServerContextTests.contextUser(plugin, fixture, "ben")
        let tokens = try #require(await context.session.current)
        let cookies = await context.responseCookies().map { String($0.split(separator: ";")[0]) }.joined(separator: "; ")
        let replayedBefore = try await plugin.serverContext(cookieHeaders: [cookies])
        #expect(replayedBefore.user?.username == "ben")

        _ = await context.run { await plugin.signOut(options: nil) }
        #expect(await context.responseCookies().contains { $0.contains("Max-Age=0") || $0.lowercased().contains("expires=thu, 01 jan 1970") })

        for attempt in [{ _ = try await plugin.serverContext(cookieHeaders: [cookies]) }, { _ = try await plugin.serverContext(authorization: "Bearer \(tokens.accessToken)", idToken: tokens.idToken) }] {
            let refusal = await authError(attempt)
            guard case .notAuthorized(let reason, _, _)? = refusal else { Issue.record("\(String(describing: refusal))"); continue }
            #expect(reason.contains("signed out"))
        }
        // Another session of the same user is not touched.
        let other = try plugin.emptyServerContext()
        _ = try await other.run { try await plugin.signIn(username: "ben", password: "Passw0rd!", options: nil) }
        let otherTokens = try #require(await other.session.current)
        #expect(try await plugin.serverContext(authorization: "Bearer \(otherTokens.accessToken)").user?.username == "ben")
        try await fixture.close(plugin)
    }

    @Test("a refreshed session's tokens are refused after its sign-out too (the session id survives rotation)")
    func signOutAfterRefresh() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        let context = try await ServerContextTests.contextUser(plugin, fixture, "ben")
        let first = try #require(await context.session.current)
        let renewed = try await context.session.refresh()
        #expect(renewed.accessToken != first.accessToken)
        _ = await context.run { await plugin.signOut(options: nil) }
        for token in [first.accessToken, renewed.accessToken] {
            #expect(await authError { _ = try await plugin.serverContext(authorization: "Bearer \(token)") } != nil)
        }
        try await fixture.close(plugin)
    }
}
