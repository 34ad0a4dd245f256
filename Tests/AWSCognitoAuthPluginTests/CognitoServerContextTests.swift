import AWSCognitoAuthPlugin
import AWSPluginsCore
import Amplify
import AmplifyAuthCore
import AmplifyTestKit
import Foundation
import Testing

let bob: JSONValue = ["username": "bob", "password": "Secr3t!pass", "attributes": ["email": "bob@example.com"]]

/// Server contexts, cookies and the session store on the Cognito plugin, against moto.
@Suite("Cognito server contexts against moto")
struct CognitoServerContextTests {
    /// Signs `username` in inside a fresh request context.
    static func signedInContext(_ plugin: AWSCognitoAuthPlugin, _ username: String) async throws -> AuthServerContext {
        let context = try plugin.emptyServerContext()
        let result = try await context.run { try await plugin.signIn(username: username, password: "Secr3t!pass", options: nil) }
        #expect(result.isSignedIn)
        return context
    }

    @Test(
        "a bearer-token context acts as its user (GetUser, UpdateUserAttributes, identity id) while the process-wide session stays the other user's")
    func bearerContext() async throws {
        try await MotoServer.with { moto in try await Self.bearerContext(moto) }
    }

    static func bearerContext(_ moto: MotoServer) async throws {
        let fixture = try CognitoFixture(moto: moto, pool: ["name": "contexts", "users": [alice, bob]], identityPool: true)
        let plugin = try fixture.plugin()
        _ = try await plugin.signIn(username: "alice", password: "Secr3t!pass", options: nil)
        let signIn = try await Self.signedInContext(plugin, "bob")
        let tokens = try #require(await signIn.session.current)

        let context = try await plugin.serverContext(authorization: "Bearer \(tokens.accessToken)", idToken: tokens.idToken)
        #expect(try await context.run { try await Amplify.Auth.getCurrentUser().username } == "bob")
        let email = try await context.run { try await plugin.fetchUserAttributes(options: nil).first { $0.key == .email }?.value }
        #expect(email == "bob@example.com")
        _ = try await context.run { try await plugin.update(userAttribute: AuthUserAttribute(.name, value: "Bob"), options: nil) }
        #expect(!(try await plugin.fetchUserAttributes(options: nil).contains(AuthUserAttribute(.name, value: "Bob"))))
        #expect(try await plugin.getCurrentUser().username == "alice")

        // .fromIdentityID paths: each user's own identity.
        let bobIdentity = try await context.run { try await plugin.identityId() }
        let aliceIdentity = try await plugin.identityId()
        #expect(bobIdentity != aliceIdentity)
        #expect(try await context.run { try await plugin.identityId() } == bobIdentity)

        // A context with nobody signed in is a guest, never the process-wide user; the default
        // credentials chain inside a context asks the context's plugin only.
        let guest = try plugin.emptyServerContext()
        let guestIdentity = try await guest.run { try await plugin.identityId() }
        #expect(guestIdentity != aliceIdentity && guestIdentity != bobIdentity)
        let chained = try await context.run {
            try await AuthPluginCredentialsProvider(plugins: { AuthPluginCredentialsProvider.currentPlugins }).credentials()
        }
        let bobCredentials = try await context.run { try await plugin.awsCredentialsProvider().credentials() }
        #expect(chained.accessKeyId == bobCredentials.accessKeyId)
        let asked = await context.run { AuthPluginCredentialsProvider.currentPlugins.count }
        #expect(asked == 1)

        let session = try #require(try await context.run { try await plugin.fetchAuthSession(options: nil) } as? AWSAuthCognitoSession)
        #expect(try session.getUserSub().get() == tokens.userId)
        try await fixture.close(plugin)
    }

    @Test("tampered, foreign-pool and wrong-use tokens are refused with the verifier's reason; a context is bound to its pool")
    func refusalsAndTenants() async throws {
        try await MotoServer.with { moto in try await Self.refusalsAndTenants(moto) }
    }

    static func refusalsAndTenants(_ moto: MotoServer) async throws {
        let tenantA = try CognitoFixture(moto: moto, pool: ["name": "tenant-a", "users": [alice]])
        let tenantB = try CognitoFixture(moto: moto, pool: ["name": "tenant-b", "users": [bob]])
        let pluginA = try tenantA.plugin()
        let pluginB = try tenantB.plugin()
        let aliceA = try await Self.signedInContext(pluginA, "alice")
        let bobB = try await Self.signedInContext(pluginB, "bob")
        let aliceTokens = try #require(await aliceA.session.current)
        let bobTokens = try #require(await bobB.session.current)

        var tampered = Array(aliceTokens.accessToken)
        tampered[tampered.count - 5] = tampered[tampered.count - 5] == "A" ? "B" : "A"
        let badSignature = await authError { _ = try await pluginA.serverContext(authorization: "Bearer \(String(tampered))") }
        if case .notAuthorized(let reason, _, _)? = badSignature {
            #expect(reason.contains("signature"))
        } else {
            Issue.record("tampered: \(String(describing: badSignature))")
        }
        let foreign = await authError { _ = try await pluginA.serverContext(authorization: "Bearer \(bobTokens.accessToken)") }
        if case .notAuthorized(let reason, _, _)? = foreign {
            #expect(reason.contains("refused"))
        } else {
            Issue.record("foreign: \(String(describing: foreign))")
        }
        let idAsAccess = await authError { _ = try await pluginA.serverContext(authorization: "Bearer \(aliceTokens.idToken)") }
        if case .notAuthorized? = idAsAccess {} else { Issue.record("id as access: \(String(describing: idAsAccess))") }

        // Tenant A's context: Amplify.Auth reaches A's plugin, B's plugin refuses it.
        #expect(try await aliceA.run { try await Amplify.Auth.getCurrentUser().username } == "alice")
        let crossed = await authError { _ = try await aliceA.run { try await pluginB.getCurrentUser() } }
        if case .invalidState? = crossed {} else { Issue.record("cross-tenant: \(String(describing: crossed))") }
        // B's process-wide identity is not reachable from A's context either.
        _ = try await pluginB.signIn(username: "bob", password: "Secr3t!pass", options: nil)
        #expect(await authError { _ = try await aliceA.run { try await pluginB.identityId() } } != nil)
        #expect(try await bobB.run { try await Amplify.Auth.getCurrentUser().username } == "bob")
        try await tenantA.close(pluginA)
        try await tenantB.close(pluginB)
    }

    @Test(
        "Amplify JS cookies make a context; a refresh inside it dispatches tokenRefreshed for the user and returns the new tokens as Set-Cookie values"
    )
    func cookieRefresh() async throws {
        try await MotoServer.with { moto in try await Self.cookieRefresh(moto) }
    }

    static func cookieRefresh(_ moto: MotoServer) async throws {
        let fixture = try CognitoFixture(moto: moto, pool: ["name": "cookies", "users": [alice]])
        let plugin = try fixture.plugin()
        let signIn = try await Self.signedInContext(plugin, "alice")
        let tokens = try #require(await signIn.session.current)
        let clientId = fixture.clientId
        let header = CognitoJSCookies.header(clientId: clientId, username: "alice", tokens: tokens)
        let context = try await plugin.serverContext(cookieHeaders: [header])
        #expect(await context.responseCookies().isEmpty)
        _ = try await context.run { try await Amplify.Auth.fetchAuthSession(options: .forceRefresh()) }
        let cookies = await context.responseCookies()
        let access = cookies.first { $0.hasPrefix("CognitoIdentityServiceProvider.\(clientId).alice.accessToken=") }
        #expect(access != nil)
        #expect(access?.contains(tokens.accessToken) == false)
        await fixture.hub.flush()
        let refreshed = fixture.events.payloads.first { $0.eventName == HubPayload.EventName.Auth.tokenRefreshed }?.data as? AuthUserEvent
        let tenant = try plugin.contextTenant().id
        let expected = AuthUserEvent(username: "alice", sub: tokens.userId, scope: .request, tenant: tenant)
        #expect(refreshed == expected)
        // Cookies of another app client are not this pool's: an empty context.
        let other = try await plugin.serverContext(cookieHeaders: [
            CognitoJSCookies.header(clientId: "someoneelse", username: "alice", tokens: tokens)
        ])
        #expect(other.user == nil)
        try await fixture.close(plugin)
    }

    @Test(
        "the session store holds Cognito sessions: persisted, restored, and a global sign-out elsewhere ends that user's alone (tokenRefreshFailed, then sessionExpired)"
    )
    func heldSessions() async throws {
        try await MotoServer.with { moto in try await Self.heldSessions(moto) }
    }

    static func heldSessions(_ moto: MotoServer) async throws {
        let fixture = try CognitoFixture(moto: moto, pool: ["name": "held", "users": [alice, bob]])
        let plugin = try fixture.plugin()
        let path = fixture.folder + "/held.sqlite"
        let store = try AuthSessionStore(plugin: plugin, credentialStorePath: path, eventLoop: { fixture.loop })
        try await store.open()
        for name in ["alice", "bob"] {
            let context = try await store.newContext()
            _ = try await context.run { try await Amplify.Auth.signIn(username: name, password: "Secr3t!pass") }
        }
        #expect(Set(await store.usernames) == ["alice", "bob"])
        await store.shutdown()
        let restored = try AuthSessionStore(plugin: plugin, credentialStorePath: path, eventLoop: { fixture.loop })
        try await restored.open()
        #expect(Set(await restored.usernames) == ["alice", "bob"])

        // Alice signs out everywhere from a browser: her held refresh token dies.
        let browser = try await Self.signedInContext(plugin, "alice")
        _ = await browser.run { await plugin.signOut(options: AuthSignOutRequest.Options(globalSignOut: true)) }
        let heldAlice = try #require(await restored.context(for: "alice"))
        let refused = try await heldAlice.run { try await plugin.fetchAuthSession(options: .forceRefresh()) }
        #expect(!refused.isSignedIn)
        let heldBob = try #require(await restored.context(for: "bob"))
        _ = try await heldBob.run { try await plugin.fetchAuthSession(options: .forceRefresh()) }
        #expect(await restored.usernames == ["bob"])

        await fixture.hub.flush()
        func heldUsers(_ name: String) -> [String] {
            var names: [String] = []
            for payload in fixture.events.payloads where payload.eventName == name {
                if let user = payload.data as? AuthUserEvent, user.scope == .held { names.append(user.username) }
            }
            return names
        }
        #expect(heldUsers(HubPayload.EventName.Auth.sessionExpired) == ["alice"])
        #expect(heldUsers(HubPayload.EventName.Auth.tokenRefreshFailed) == ["alice"])
        #expect(heldUsers(HubPayload.EventName.Auth.tokenRefreshed) == ["bob"])
        await restored.shutdown()
        try await fixture.close(plugin)
    }
}

extension CognitoServerContextTests {
    @Test("a sign-in challenge belongs to the context that started it: another context, or the process-wide session, cannot answer it")
    func challengesPerContext() async throws {
        try await MotoServer.with { moto in try await Self.challengesPerContext(moto) }
    }

    static func challengesPerContext(_ moto: MotoServer) async throws {
        let fixture = try CognitoFixture(
            moto: moto, pool: ["name": "challenges", "users": [["username": "newbie", "temporaryPassword": "Temp0rary!x"], bob]])
        let plugin = try fixture.plugin(flow: "USER_PASSWORD_AUTH")
        let newbie = try plugin.emptyServerContext()
        let other = try plugin.emptyServerContext()
        let first = try await newbie.run { try await plugin.signIn(username: "newbie", password: "Temp0rary!x", options: nil) }
        guard case .confirmSignInWithNewPassword = first.nextStep else {
            Issue.record("expected a new-password step, got \(first.nextStep)")
            return
        }
        let fromOther = await authError {
            _ = try await other.run { try await plugin.confirmSignIn(challengeResponse: "Ch0sen!passw0rd", options: nil) }
        }
        if case .invalidState? = fromOther {} else { Issue.record("another context answered the challenge: \(String(describing: fromOther))") }
        let fromProcess = await authError { _ = try await plugin.confirmSignIn(challengeResponse: "Ch0sen!passw0rd", options: nil) }
        if case .invalidState? = fromProcess {
        } else {
            Issue.record("the process-wide session answered the challenge: \(String(describing: fromProcess))")
        }
        #expect(try await newbie.run { try await plugin.confirmSignIn(challengeResponse: "Ch0sen!passw0rd", options: nil) }.isSignedIn)
        #expect(newbie.user?.username == "newbie")
        #expect(other.user == nil)
        #expect(await authError { _ = try await plugin.getCurrentUser() } != nil)
        try await fixture.close(plugin)
    }
}

/// The `Cookie` header a browser sends after Amplify JS signed a user in (js-cookie's encoding:
/// `encodeURIComponent`, with `# $ & + ^ \` |` kept in names and
/// `# $ & + / : < = > ? @ [ ] ^ \` { | }` kept in values).
enum CognitoJSCookies {
    static func encode(_ text: String, keeping kept: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()" + kept)
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    static func header(clientId: String, username: String, tokens: StoredSession) -> String {
        let base = "CognitoIdentityServiceProvider.\(clientId)"
        return [
            ("\(base).LastAuthUser", username), ("\(base).\(username).accessToken", tokens.accessToken),
            ("\(base).\(username).idToken", tokens.idToken), ("\(base).\(username).refreshToken", tokens.refreshToken),
            ("\(base).\(username).clockDrift", "0"),
        ].map { "\(encode($0.0, keeping: "#$&+^`|"))=\(encode($0.1, keeping: "#$&+/:<=>?@[]^`{|}"))" }.joined(separator: "; ")
    }
}
