import Amplify
import AmplifyAuthCore
import AmplifyTestKit
import Foundation
import LocalAuthPlugin
import LocalAuthTestSupport
import Testing

/// Server contexts on the local pool: many users in one process, each call acting as its context's user.
@Suite("Server contexts on the local pool")
struct ServerContextTests {
    /// Signs `username` up and in inside a fresh context; returns the context.
    static func contextUser(_ plugin: LocalAuthPlugin, _ fixture: LocalPoolFixture, _ username: String) async throws -> AuthServerContext {
        _ = try await plugin.signUp(
            username: username, password: "Passw0rd!",
            options: AuthSignUpRequest.Options(userAttributes: [AuthUserAttribute(.email, value: "\(username)@example.com")]))
        _ = try await plugin.confirmSignUp(for: username, confirmationCode: try await fixture.latestCode(plugin, for: username), options: nil)
        let context = try plugin.emptyServerContext()
        let result = try await context.run { try await plugin.signIn(username: username, password: "Passw0rd!", options: nil) }
        #expect(result.isSignedIn)
        return context
    }

    @Test("inside a context every Auth call acts as its user; the process-wide session is untouched outside it")
    func callsActAsTheContextUser() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        try await signUpAndIn(plugin, fixture, "alice")
        let bob = try await Self.contextUser(plugin, fixture, "bob")

        let inside = try await bob.run { try await plugin.getCurrentUser().username }
        #expect(inside == "bob")
        #expect(try await plugin.getCurrentUser().username == "alice")
        let session = try await bob.run { try await plugin.fetchAuthSession(options: nil) }
        #expect(session.isSignedIn)
        let email = try await bob.run { try await plugin.fetchUserAttributes(options: nil).first { $0.key == .email }?.value }
        #expect(email == "bob@example.com")
        _ = try await bob.run { try await plugin.update(userAttribute: AuthUserAttribute(.name, value: "Bob"), options: nil) }
        #expect(try await plugin.fetchUserAttributes(options: nil).contains { $0.key == .name } == false)
        #expect(try await bob.run { try await plugin.fetchUserAttributes(options: nil) }.contains(AuthUserAttribute(.name, value: "Bob")))

        // Amplify.Auth inside the context routes to the context's plugin (no configure needed).
        #expect(try await bob.run { try await Amplify.Auth.getCurrentUser().username } == "bob")

        _ = await bob.run { await plugin.signOut(options: nil) }
        #expect(await authError { _ = try await bob.run { try await plugin.getCurrentUser() } } != nil)
        #expect(try await plugin.getCurrentUser().username == "alice")

        let signedOut = await fixture.eventNames().enumerated().filter { $0.element == HubPayload.EventName.Auth.signedOut }
        #expect(signedOut.count == 1)
        let data = signedOut.first.map { fixture.events.payloads[$0.offset].data as? AuthUserEvent } ?? nil
        #expect(data?.username == "bob")
        #expect(data?.scope == .request)
        #expect(data?.sub.isEmpty == false)
        try await fixture.close(plugin)
    }

    @Test("a context from a bearer token acts as its user; tampered, foreign and malformed tokens are refused before the context exists")
    func bearerTokens() async throws {
        let fixture = try LocalPoolFixture()
        let other = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        let foreignPlugin = try other.plugin()
        let bob = try await Self.contextUser(plugin, fixture, "bob")
        let tokens = try #require(await bob.session.current)
        let context = try await plugin.serverContext(authorization: "Bearer \(tokens.accessToken)", idToken: tokens.idToken)
        #expect(try await context.run { try await plugin.getCurrentUser().username } == "bob")
        #expect(await context.responseCookies().isEmpty)

        var tampered = Array(tokens.accessToken)
        tampered[tampered.count - 3] = tampered[tampered.count - 3] == "A" ? "B" : "A"
        let refusal = await authError { _ = try await plugin.serverContext(authorization: "Bearer \(String(tampered))") }
        guard case .notAuthorized(let reason, _, _)? = refusal else {
            Issue.record("tampered token: \(String(describing: refusal))")
            return
        }
        #expect(reason.contains("signature"))

        // A token of another pool (another signing key).
        let carol = try await Self.contextUser(foreignPlugin, other, "carol")
        let foreign = try #require(await carol.session.current)
        #expect(await authError { _ = try await plugin.serverContext(authorization: "Bearer \(foreign.accessToken)") } != nil)
        // An ID token where the access token belongs.
        let wrongUse = await authError { _ = try await plugin.serverContext(authorization: "Bearer \(tokens.idToken)") }
        if case .notAuthorized(let reason, _, _)? = wrongUse {
            #expect(reason.contains("token_use"))
        } else {
            Issue.record("id token as access token")
        }
        await #expect(throws: AmplifyJSCookies.CookieError.self) { _ = try await plugin.serverContext(authorization: "Basic abc") }

        // Contexts are bound to their pool: bob's context on the other pool's plugin is refused.
        let crossed = await authError { _ = try await context.run { try await foreignPlugin.getCurrentUser() } }
        if case .invalidState? = crossed {} else { Issue.record("cross-tenant call: \(String(describing: crossed))") }
        try await other.close(foreignPlugin)
        try await fixture.close(plugin)
    }

    @Test(
        "Amplify JS cookies make a context; an expired access token with its refresh token is refreshed before the context runs, and the response sets the new cookies"
    )
    func cookieContextsRefresh() async throws {
        let fixture = try LocalPoolFixture(["accessTokenLifetimeSeconds": 1])
        let plugin = try fixture.plugin()
        let signIn = try await Self.contextUser(plugin, fixture, "dana@example.com")
        let cookies = await signIn.responseCookies()
        #expect(cookies.count == 5)
        #expect(cookies.allSatisfy { $0.contains("; Path=/; Max-Age=31536000") && $0.hasSuffix("; Secure; SameSite=Lax") })
        let tokens = try #require(await signIn.session.current)

        // The Cookie header as Amplify JS (js-cookie) writes it: names URL-encoded, '@' as %40.
        let header = JSCookieJar.header(clientId: "local-client", username: "dana@example.com", tokens: tokens)
        #expect(header.contains("CognitoIdentityServiceProvider.local-client.dana%40example.com.accessToken="))

        // Wait until the access token has expired (by its own time, not a guess: a loaded machine
        // may take longer than a second to get here).
        while Date() < tokens.accessTokenExpiresAt.addingTimeInterval(0.2) { try await Task.sleep(for: .milliseconds(100)) }
        let renewed = try await plugin.serverContext(cookieHeaders: ["theme=dark; " + header])
        let newCookies = await renewed.responseCookies()
        let access = newCookies.first { $0.hasPrefix("CognitoIdentityServiceProvider.local-client.dana%40example.com.accessToken=") }
        #expect(access != nil)
        #expect(access?.contains(tokens.accessToken) == false)
        let refreshed = await fixture.eventNames().filter { $0 == HubPayload.EventName.Auth.tokenRefreshed }
        #expect(refreshed.isEmpty)  // the up-front refresh is the verification, not a context event
        // The rotated refresh token works in the next request; the old one is spent.
        let next = try #require(await renewed.session.current)
        let again = try await plugin.serverContext(cookieHeaders: [
            JSCookieJar.header(clientId: "local-client", username: "dana@example.com", tokens: next)
        ])
        #expect(try await again.run { try await plugin.getCurrentUser().userId } == next.userId)
        #expect(await authError { _ = try await plugin.serverContext(cookieHeaders: [header]) } != nil)

        // Signing out inside a cookie context clears the cookies.
        _ = await again.run { await plugin.signOut(options: nil) }
        let cleared = await again.responseCookies()
        #expect(cleared.count == 6)
        #expect(cleared.allSatisfy { $0.contains("Max-Age=0") })
        try await fixture.close(plugin)
    }

    @Test("a forced refresh inside a context dispatches Auth.tokenRefreshed naming the user, and the response carries the new tokens")
    func refreshInsideContext() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        let erin = try await Self.contextUser(plugin, fixture, "erin")
        let tokens = try #require(await erin.session.current)
        let context = try await plugin.serverContext(cookieHeaders: [JSCookieJar.header(clientId: "local-client", username: "erin", tokens: tokens)])
        _ = try await context.run { try await plugin.fetchAuthSession(options: .forceRefresh()) }
        let cookies = await context.responseCookies()
        #expect(
            cookies.contains { $0.hasPrefix("CognitoIdentityServiceProvider.local-client.erin.refreshToken=") && !$0.contains(tokens.refreshToken) })
        await fixture.hub.flush()
        let event = fixture.events.payloads.first { $0.eventName == HubPayload.EventName.Auth.tokenRefreshed }?.data as? AuthUserEvent
        #expect(event?.username == "erin")
        #expect(event?.sub == tokens.userId)
        #expect(event?.scope == .request)
        try await fixture.close(plugin)
    }

    @Test("no Amplify cookies make an empty context; another client's cookies are not this pool's")
    func emptyAndForeignCookies() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        let empty = try await plugin.serverContext(cookieHeaders: ["a=b; c=d"])
        #expect(empty.user == nil)
        let erin = try await Self.contextUser(plugin, fixture, "erin")
        let tokens = try #require(await erin.session.current)
        let foreign = try await plugin.serverContext(cookieHeaders: [JSCookieJar.header(clientId: "another-client", username: "erin", tokens: tokens)]
        )
        #expect(foreign.user == nil)
        try await fixture.close(plugin)
    }
}

/// Cookies built the way Amplify JS's browser storage (js-cookie) writes them, independently of
/// the package's writer: names through `encodeURIComponent` with `# $ & + ^ \` |` decoded back,
/// values through `encodeURIComponent` with `# $ & + / : < = > ? @ [ ] ^ \` { | }` decoded back.
enum JSCookieJar {
    static func encodeURIComponent(_ text: String) -> String {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()")
        return text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    static func name(_ text: String) -> String {
        var encoded = encodeURIComponent(text)
        for (escape, plain) in [("%23", "#"), ("%24", "$"), ("%26", "&"), ("%2B", "+"), ("%5E", "^"), ("%60", "`"), ("%7C", "|")] {
            encoded = encoded.replacingOccurrences(of: escape, with: plain)
        }
        return encoded
    }

    static func value(_ text: String) -> String {
        var encoded = encodeURIComponent(text)
        for (escape, plain) in [
            ("%23", "#"), ("%24", "$"), ("%26", "&"), ("%2B", "+"), ("%2F", "/"), ("%3A", ":"), ("%3C", "<"), ("%3D", "="), ("%3E", ">"),
            ("%3F", "?"), ("%40", "@"), ("%5B", "["), ("%5D", "]"), ("%5E", "^"), ("%60", "`"), ("%7B", "{"), ("%7C", "|"), ("%7D", "}"),
        ] {
            encoded = encoded.replacingOccurrences(of: escape, with: plain)
        }
        return encoded
    }

    /// The `Cookie` header a browser sends after Amplify JS signed `username` in.
    static func header(clientId: String, username: String, tokens: StoredSession) -> String {
        let base = "CognitoIdentityServiceProvider.\(clientId)"
        let pairs = [
            ("\(base).LastAuthUser", username),
            ("\(base).\(username).accessToken", tokens.accessToken),
            ("\(base).\(username).idToken", tokens.idToken),
            ("\(base).\(username).refreshToken", tokens.refreshToken),
            ("\(base).\(username).clockDrift", "0"),
            ("\(base).\(username).signInDetails", #"{"loginId":"\#(username)","authFlowType":"USER_SRP_AUTH"}"#),
        ]
        return pairs.map { "\(name($0.0))=\(value($0.1))" }.joined(separator: "; ")
    }
}
