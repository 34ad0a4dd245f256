import Amplify
import AmplifyAuthCore
import Foundation
import LocalAuthPlugin
import LocalAuthTestSupport
import Testing

@Suite("Authenticating requests (the core of the HTTP-server middleware)")
struct AmplifyAuthenticatorTests {
    /// `username` signed up and in inside a context; the context's tokens.
    static func tokens(_ plugin: LocalAuthPlugin, _ fixture: LocalPoolFixture, _ username: String) async throws -> StoredSession {
        _ = try await plugin.signUp(
            username: username, password: "Passw0rd!",
            options: AuthSignUpRequest.Options(userAttributes: [AuthUserAttribute(.email, value: "\(username)@example.com")]))
        _ = try await plugin.confirmSignUp(for: username, confirmationCode: try await fixture.latestCode(plugin, for: username), options: nil)
        let context = try plugin.emptyServerContext()
        _ = try await context.run { try await plugin.signIn(username: username, password: "Passw0rd!", options: nil) }
        return try #require(await context.session.current)
    }

    static func bearer(_ token: String) -> RequestCredentials { RequestCredentials(authorization: ["Bearer \(token)"], cookies: []) }

    static func challenge(_ authenticator: AmplifyAuthenticator, _ credentials: RequestCredentials) async -> AuthChallenge? {
        do {
            _ = try await authenticator.authenticate(credentials)
            return nil
        } catch {
            return error
        }
    }

    @Test("a bearer token becomes its user with groups and scopes; the same token again is a cache hit; the handler acts as the user")
    func bearerAndCache() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        _ = try await Self.tokens(plugin, fixture, "ann")
        try await plugin.addUser("ann", toGroup: "admins")
        #expect(try await plugin.groups(of: "ann") == ["admins"])
        // Groups reach tokens issued after the change.
        let context = try plugin.emptyServerContext()
        _ = try await context.run { try await plugin.signIn(username: "ann", password: "Passw0rd!", options: nil) }
        let tokens = try #require(await context.session.current)
        let authenticator = AmplifyAuthenticator(plugin: plugin)
        let first = try await authenticator.authenticate(Self.bearer(tokens.accessToken))
        let user = try #require(first.user)
        #expect(user.username == "ann")
        #expect(user.sub == tokens.userId)
        #expect(user.groups == ["admins"])
        #expect(user.scopes == ["aws.cognito.signin.user.admin"])
        #expect(user.claims["token_use"]?.stringValue == "access")
        #expect(!user.description.contains(tokens.accessToken))
        #expect(try await first.context.run { try await plugin.getCurrentUser().username } == "ann")
        #expect(authenticator.cache?.statistics.hits == 0)
        let second = try await authenticator.authenticate(Self.bearer(tokens.accessToken))
        #expect(second.user == user)
        #expect(authenticator.cache?.statistics.hits == 1)
        #expect(
            try await second.context.run { try await plugin.fetchUserAttributes(options: nil).first { $0.key == .email }?.value } == "ann@example.com"
        )
        #expect(await second.responseCookies().isEmpty)
        try await fixture.close(plugin)
    }

    @Test("verifiedRequest hands over the claims the pool read: the same as parsing the tokens again, expiring with the earlier token")
    func verifiedRequestClaims() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        let ann = try await Self.tokens(plugin, fixture, "ann")
        let verified = try await plugin.verifiedRequest(AuthRequestTokens(accessToken: ann.accessToken, idToken: ann.idToken))
        let parsed = VerifiedRequest(parsing: verified.session)
        #expect(verified.accessClaims == parsed.accessClaims)
        #expect(verified.accessClaims["token_use"]?.stringValue == "access")
        #expect(verified.expiresAt == parsed.expiresAt)
        let accessExpiry = try #require(try JSONWebToken(parsing: ann.accessToken).claims["exp"]?.doubleValue)
        let idExpiry = try #require(try JSONWebToken(parsing: ann.idToken).claims["exp"]?.doubleValue)
        #expect(verified.expiresAt == min(accessExpiry, idExpiry))
        #expect(try await plugin.verifiedSession(AuthRequestTokens(accessToken: ann.accessToken)).username == "ann")
        await #expect(throws: AuthError.self) {
            _ = try await plugin.verifiedRequest(AuthRequestTokens(accessToken: ann.idToken))
        }
        try await fixture.close(plugin)
    }

    @Test("no credentials is an empty context; bad credentials are 400 or 401, never a context")
    func refusals() async throws {
        let fixture = try LocalPoolFixture()
        let other = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        let foreignPlugin = try other.plugin()
        let tokens = try await Self.tokens(plugin, fixture, "ben")
        let foreign = try await Self.tokens(foreignPlugin, other, "ben")
        let authenticator = AmplifyAuthenticator(plugin: plugin)

        let anonymous = try await authenticator.authenticate(RequestCredentials(authorization: ["Basic Zm9vOmJhcg=="], cookies: ["theme=dark"]))
        #expect(anonymous.user == nil)
        #expect(anonymous.context.user == nil)

        var tampered = Array(tokens.accessToken)
        tampered[tampered.count / 2] = tampered[tampered.count / 2] == "A" ? "B" : "A"
        for token in [String(tampered), foreign.accessToken, tokens.idToken, "not.a.jwt", "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0."] {
            let refusal = try #require(await Self.challenge(authenticator, Self.bearer(token)))
            #expect(refusal.status == 401)
            #expect(refusal.code == .invalidToken)
            #expect(
                refusal.wwwAuthenticate?.hasPrefix(
                    "Bearer realm=\"amplify\", error=\"invalid_token\", error_description=\"The access token is refused") == true)
            #expect(!refusal.message.contains(token))
        }
        let twice = try #require(
            await Self.challenge(authenticator, RequestCredentials(authorization: ["Bearer \(tokens.accessToken)", "Bearer x"], cookies: [])))
        #expect(twice.status == 400)
        #expect(twice.code == .invalidRequest)
        let injected = try #require(
            await Self.challenge(
                authenticator,
                RequestCredentials(authorization: [], cookies: ["CognitoIdentityServiceProvider.local-client.LastAuthUser=ben\r\nX: y"])))
        #expect(injected.status == 400)
        // An ID token of another user beside the access token.
        let carl = try await Self.tokens(plugin, fixture, "carl")
        let mixed = try #require(
            await Self.challenge(
                authenticator, RequestCredentials(authorization: ["Bearer \(tokens.accessToken)"], cookies: []).with(idToken: carl.idToken)))
        #expect(mixed.status == 401)
        #expect(mixed.message.contains("ID token"))
        try await fixture.close(plugin)
        try await other.close(foreignPlugin)
    }

    @Test("cookies naming another user than their tokens are refused, from the cache too")
    func cookieUserMismatch() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        let ann = try await Self.tokens(plugin, fixture, "ann")
        let authenticator = AmplifyAuthenticator(plugin: plugin)
        let own = AmplifyJSCookies.setCookies(clientId: "local-client", session: ann).map { $0.components(separatedBy: ";")[0] }.joined(
            separator: "; ")
        #expect(try await authenticator.authenticate(RequestCredentials(authorization: [], cookies: [own])).user?.username == "ann")
        var renamed = ann
        renamed.username = "ben"
        let forged = AmplifyJSCookies.setCookies(clientId: "local-client", session: renamed).map { $0.components(separatedBy: ";")[0] }.joined(
            separator: "; ")
        let refusal = try #require(await Self.challenge(authenticator, RequestCredentials(authorization: [], cookies: [forged])))
        #expect(refusal.status == 401)
        #expect(refusal.message.contains("belong to 'ann'"))
        try await fixture.close(plugin)
    }

    @Test("a sign-out in a request's context refuses the token at once, though it was cached")
    func signOutEmptiesTheCache() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        let tokens = try await Self.tokens(plugin, fixture, "dana")
        let authenticator = AmplifyAuthenticator(plugin: plugin)
        let credentials = RequestCredentials(
            authorization: [],
            cookies: [
                AmplifyJSCookies.setCookies(clientId: "local-client", session: tokens).map { $0.components(separatedBy: ";")[0] }.joined(
                    separator: "; ")
            ])
        _ = try await authenticator.authenticate(credentials)
        let request = try await authenticator.authenticate(credentials)
        #expect(authenticator.cache?.statistics.hits == 1)
        _ = await request.context.run { await plugin.signOut(options: nil) }
        #expect(await request.responseCookies().allSatisfy { $0.contains("Max-Age=0") })
        let refusal = try #require(await Self.challenge(authenticator, credentials))
        #expect(refusal.status == 401)
        #expect(refusal.message.contains("signed out"))
        try await fixture.close(plugin)
    }

    @Test("an expired access token with its refresh token is renewed up front, and the new cookies go back; it is not cached")
    func expiredIsRefreshed() async throws {
        let fixture = try LocalPoolFixture(["accessTokenLifetimeSeconds": 1])
        let plugin = try fixture.plugin()
        let tokens = try await Self.tokens(plugin, fixture, "erin")
        while Date() < tokens.accessTokenExpiresAt.addingTimeInterval(0.2) { try await Task.sleep(for: .milliseconds(100)) }
        let authenticator = AmplifyAuthenticator(plugin: plugin, cookieAttributes: .init(secure: false, httpOnly: true))
        let cookies = AmplifyJSCookies.setCookies(clientId: "local-client", session: tokens).map { $0.components(separatedBy: ";")[0] }.joined(
            separator: "; ")
        let request = try await authenticator.authenticate(RequestCredentials(authorization: [], cookies: [cookies]))
        #expect(request.user?.username == "erin")
        let written = await request.responseCookies()
        #expect(
            written.contains { $0.contains(".accessToken=") && !$0.contains(tokens.accessToken) && $0.contains("HttpOnly") && !$0.contains("Secure") }
        )
        #expect(authenticator.cache?.count == 0)
        try await fixture.close(plugin)
    }

    @Test("tenants chosen per request: each pool's tokens pass on its own host only")
    func tenants() async throws {
        let first = try LocalPoolFixture()
        let second = try LocalPoolFixture()
        let pluginA = try first.plugin()
        let pluginB = try second.plugin()
        let ann = try await Self.tokens(pluginA, first, "ann")
        let ben = try await Self.tokens(pluginB, second, "ben")
        let authenticator = AmplifyAuthenticator(tenants: { host, _ in
            switch host {
            case "a.example.com": pluginA
            case "b.example.com": pluginB
            default: nil
            }
        })
        func on(_ host: String, _ token: String) -> RequestCredentials {
            RequestCredentials(authorization: ["Bearer \(token)"], cookies: [], host: host, path: "/")
        }
        #expect(try await authenticator.authenticate(on("a.example.com", ann.accessToken)).user?.username == "ann")
        #expect(try await authenticator.authenticate(on("b.example.com", ben.accessToken)).user?.username == "ben")
        // The cached entry of pool A does not answer for pool B.
        #expect(await Self.challenge(authenticator, on("b.example.com", ann.accessToken))?.status == 401)
        #expect(await Self.challenge(authenticator, on("a.example.com", ben.accessToken))?.status == 401)
        #expect(await Self.challenge(authenticator, on("c.example.com", ann.accessToken))?.status == 500)
        try await first.close(pluginA)
        try await second.close(pluginB)
    }
}

extension RequestCredentials {
    /// The same credentials with an ID token, as Amplify JS's cookies carry it beside the access token.
    func with(idToken: String) -> RequestCredentials {
        guard let bearer = authorization.first, let access = bearer.split(separator: " ").last else { return self }
        let session = StoredSession(
            username: "ben", userId: "", idToken: idToken, accessToken: String(access), refreshToken: "", accessTokenExpiresAt: Date(),
            refreshTokenExpiresAt: nil)
        let cookies = AmplifyJSCookies.setCookies(clientId: "local-client", session: session)
            .map { $0.components(separatedBy: ";")[0] }.joined(separator: "; ")
        return RequestCredentials(authorization: [], cookies: [cookies])
    }
}
