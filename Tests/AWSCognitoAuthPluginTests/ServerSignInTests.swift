import AWSCognitoAuthPlugin
import Amplify
import AmplifyAuthCore
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

/// The server-owned sign-in routes (`AuthRoutes`) through the hosted-UI stand-in: the test plays
/// the browser between the app's routes and the stand-in's pages.
@Suite("Server sign-in routes through the hosted UI")
struct ServerSignInTests {
    static let origin = "http://127.0.0.1:8080"
    static let callback = origin + "/auth/sign-in-callback"
    static let signedOut = origin + "/auth/sign-out-callback"

    final class Setup: Sendable {
        let server: HostedUIServer
        let loop: EventLoop
        let hub: DefaultHubPlugin
        let plugin: AWSCognitoAuthPlugin
        let routes: AuthRoutes
        let cache = VerifiedTokenCache()

        init(
            _ options: HostedUIServer.Options = HostedUIServer.Options(
                callbackURLs: [ServerSignInTests.callback], logoutURLs: [ServerSignInTests.signedOut]),
            sameSite: String = "Lax"
        ) async throws {
            server = try await HostedUIServer.start(options)
            loop = try EventLoop(name: "server-sign-in")
            hub = DefaultHubPlugin(loop: loop)
            plugin = AWSCognitoAuthPlugin(hub: hub, loop: loop, environment: [:])
            var block = server.cognitoConfiguration(
                callbackURL: "myapp://callback/," + ServerSignInTests.callback, logoutURL: ServerSignInTests.signedOut)
            if case .object(var fields) = block {
                fields["credentialStore"] = .string(NSTemporaryDirectory() + "server-sign-in-\(UUID().uuidString).sqlite")
                block = .object(fields)
            }
            try plugin.configure(using: block)
            routes = try AuthRoutes(
                plugin: plugin, configuration: .init(origin: ServerSignInTests.origin, afterSignIn: "/me", sameSite: sameSite, cache: cache))
        }

        func close() async throws {
            await plugin.reset()
            await hub.reset()
            try loop.shutdown()
            server.stop()
        }
    }

    /// The browser: the app's cookies, kept between the app's routes.
    struct Browser {
        let routes: AuthRoutes
        var jar = CookieJar()

        mutating func get(_ target: String, fetchSite: String? = "same-origin") async throws -> AuthRouteResponse {
            let parts = target.split(separator: "?", maxSplits: 1)
            let query = parts.count > 1 ? AuthRouteRequest.formFields(String(parts[1])) : [:]
            let path = String(parts[0]).replacingOccurrences(of: ServerSignInTests.origin, with: "")
            let response = try #require(
                await routes.handle(AuthRouteRequest(method: "GET", path: path, query: query, cookies: jar.headers, fetchSite: fetchSite)))
            jar.apply(response.setCookies)
            return response
        }

        mutating func post(_ path: String, _ form: [String: String]) async throws -> AuthRouteResponse {
            let response = try #require(
                await routes.handle(
                    AuthRouteRequest(
                        method: "POST", path: path, form: form, cookies: jar.headers, origin: ServerSignInTests.origin, fetchSite: "same-origin")))
            jar.apply(response.setCookies)
            return response
        }
    }

    /// Starts a sign-in at the app and signs in on the stand-in's page: the callback URL it sends back.
    static func signIn(_ setup: Setup, _ browser: inout Browser, as user: String = "alice", path: String = "/auth/sign-in") async throws -> String {
        let start = try await browser.get(path)
        #expect(start.status == 303)
        let authorize = try #require(start.location.flatMap(URL.init(string:)))
        return try await setup.server.submitSignIn(at: authorize, username: user, password: "Passw0rd!")
    }

    static func tokenCookies(_ response: AuthRouteResponse) -> [String] {
        response.setCookies.filter { $0.hasPrefix("CognitoIdentityServiceProvider") && !$0.contains("Max-Age=0") }
    }

    @Test("sign-in redirects with PKCE S256, state and nonce in HttpOnly proof cookies; the callback sets token cookies the authenticator accepts")
    func signInThroughTheHostedUI() async throws {
        let setup = try await Setup()
        var browser = Browser(routes: setup.routes)
        let start = try await browser.get("/auth/sign-in?redirect=/me/files")
        let authorize = try #require(start.location.flatMap { URLComponents(string: $0) })
        let query = Dictionary(uniqueKeysWithValues: (authorize.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        #expect(authorize.path == "/oauth2/authorize")
        #expect(query["code_challenge_method"] == "S256")
        #expect(query["code_challenge"]?.count == 43)
        #expect(query["redirect_uri"] == Self.callback)
        #expect(query["state"]?.isEmpty == false)
        #expect(query["nonce"]?.isEmpty == false)
        for name in ["com.amplify.server_auth.pkce", "com.amplify.server_auth.state"] {
            let attributes = try #require(browser.jar.attributes[name])
            #expect(attributes["httponly"] != nil)
            #expect(attributes["max-age"] == "300")
            #expect(attributes["path"] == "/auth")
        }
        let location = try await setup.server.submitSignIn(at: try #require(authorize.url), username: "alice", password: "Passw0rd!")
        #expect(location.hasPrefix(Self.callback + "?code="))
        let callback = try await browser.get(location)
        #expect(callback.status == 303)
        #expect(callback.location == "/me/files")
        #expect(Self.tokenCookies(callback).count == 5)
        #expect(Self.tokenCookies(callback).allSatisfy { $0.contains("; HttpOnly") })
        #expect(browser.jar.values["com.amplify.server_auth.pkce"] == nil)
        let user = try await AmplifyAuthenticator(plugin: setup.plugin).authenticate(
            RequestCredentials(authorization: [], cookies: browser.jar.headers))
        #expect(user.user?.username == "alice")

        // The same answer again: the proof cookies are gone, so it is refused, and no cookie is set.
        let replayed = try await browser.get(location)
        #expect(replayed.status == 400)
        #expect(Self.tokenCookies(replayed).isEmpty)
        try await setup.close()
    }

    @Test("a forged state, a missing cookie, a wrong verifier, a code used twice and a refused sign-in: a page and a 4xx, never a token cookie")
    func refusedCallbacks() async throws {
        let setup = try await Setup()
        var browser = Browser(routes: setup.routes)
        // A forged state.
        var location = try await Self.signIn(setup, &browser)
        let forged = try await browser.get(location.replacingOccurrences(of: "state=", with: "state=x"))
        #expect(forged.status == 400)
        #expect(Self.tokenCookies(forged).isEmpty)
        // A callback without the proof cookies (another browser).
        location = try await Self.signIn(setup, &browser)
        var stranger = Browser(routes: setup.routes)
        #expect(try await stranger.get(location).status == 400)
        // A wrong verifier: the stand-in refuses the exchange.
        location = try await Self.signIn(setup, &browser)
        var tampered = browser
        tampered.jar.apply(["com.amplify.server_auth.pkce=" + String(repeating: "x", count: 43) + "; Path=/auth; Max-Age=300"])
        let badVerifier = try await tampered.get(location)
        #expect(badVerifier.status == 401)
        #expect(Self.tokenCookies(badVerifier).isEmpty)
        // A code used twice: the second exchange is refused, though the proof cookies are replayed.
        location = try await Self.signIn(setup, &browser)
        let saved = browser
        #expect(try await browser.get(location).status == 303)
        var replaying = saved
        let second = try await replaying.get(location)
        #expect(second.status == 401)
        #expect(Self.tokenCookies(second).isEmpty)
        // The user refuses on the hosted UI.
        try await setup.server.setMode(.deny)
        var refusing = Browser(routes: setup.routes)
        let denied = try await refusing.get(try await Self.signIn(setup, &refusing))
        #expect(denied.status == 401)
        #expect(denied.html.contains("access_denied"))
        #expect(Self.tokenCookies(denied).isEmpty)
        try await setup.server.setMode(.normal)
        // Off-site targets and bad provider names are refused before the hosted UI is involved.
        for target in ["//evil.example", "https://evil.example/", "/\\evil"] {
            #expect(
                try await browser.get("/auth/sign-in?redirect=" + (target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")).status
                    == 400)
        }
        #expect(try await browser.get("/auth/sign-in?identity_provider=Evil%20Corp%22").status == 400)
        try await setup.close()
    }

    @Test("identity_provider and sign-up pass through to the hosted UI's authorize and signup pages")
    func providerAndSignUp() async throws {
        let setup = try await Setup()
        var browser = Browser(routes: setup.routes)
        let start = try await browser.get("/auth/sign-in?identity_provider=Google")
        let authorize = try #require(start.location.flatMap(URL.init(string:)))
        #expect(authorize.query?.contains("identity_provider=Google") == true)
        let location = try await setup.server.submitSignIn(at: authorize, username: "", password: "")
        let callback = try await browser.get(location)
        #expect(callback.status == 303)
        let user = try await AmplifyAuthenticator(plugin: setup.plugin).authenticate(
            RequestCredentials(authorization: [], cookies: browser.jar.headers))
        #expect(user.user?.username.hasPrefix("Google_") == true)
        let signUp = try await browser.get("/auth/sign-up")
        #expect(signUp.location?.hasPrefix(setup.server.baseURL.absoluteString + "/signup?") == true)
        try await setup.close()
    }

    @Test("sign-out revokes the refresh token, clears the cookies and goes through the hosted UI's logout back to the app")
    func signOutThroughTheHostedUI() async throws {
        let setup = try await Setup()
        var browser = Browser(routes: setup.routes)
        _ = try await browser.get(try await Self.signIn(setup, &browser))
        let signedIn = browser.jar.headers
        let signOut = try await browser.get("/auth/sign-out")  // a link on the app's own page
        let logout = try #require(signOut.location.flatMap { URLComponents(string: $0) })
        #expect(logout.path == "/logout")
        #expect(logout.queryItems?.first { $0.name == "logout_uri" }?.value == Self.signedOut)
        #expect(browser.jar.values.keys.allSatisfy { !$0.hasPrefix("CognitoIdentityServiceProvider") })
        let answer = try await RawHTTP.request(port: setup.server.port, "GET", logout.percentEncodedPath + "?" + (logout.percentEncodedQuery ?? ""))
        #expect(answer.status == 302)
        let back = try #require(answer.values(of: "Location").first)
        #expect(back == Self.signedOut)
        let final = try await browser.get(back)
        #expect(final.location == "/")
        let state = try await setup.server.state()
        #expect((state["counts"]?["revocations"]?.doubleValue ?? 0) >= 1)
        // The old cookies no longer authenticate: their refresh token is revoked and the tokens denied.
        await #expect(throws: AuthChallenge.self) {
            _ = try await AmplifyAuthenticator(plugin: setup.plugin).authenticate(RequestCredentials(authorization: [], cookies: signedIn))
        }
        // Another site's link only shows the button.
        var other = Browser(routes: setup.routes)
        _ = try await other.get(try await Self.signIn(setup, &other))
        let crossSite = try await other.get("/auth/sign-out", fetchSite: "cross-site")
        #expect(crossSite.status == 200)
        #expect(crossSite.html.contains("id=\"submit\""))
        #expect(other.jar.values.keys.contains { $0.hasPrefix("CognitoIdentityServiceProvider") })
        try await setup.close()
    }

    @Test("with SameSite=Strict the callback answers a page that sets the cookies and moves on by itself, since a redirect would arrive without them")
    func strictCookiesLandOnAPage() async throws {
        let setup = try await Setup(sameSite: "Strict")
        var browser = Browser(routes: setup.routes)
        let callback = try await browser.get(try await Self.signIn(setup, &browser))
        #expect(callback.status == 200)
        #expect(callback.location == nil)
        #expect(callback.html.contains("<meta http-equiv=\"refresh\" content=\"0;url=/me\">"))
        #expect(Self.tokenCookies(callback).count == 5)
        #expect(Self.tokenCookies(callback).allSatisfy { $0.contains("; SameSite=Strict") && $0.contains("; HttpOnly") })
        try await setup.close()
    }

    @Test("tokens too large for a cookie are refused with a page that says so, rather than dropped by the browser")
    func oversizedTokens() async throws {
        let groups = (0..<220).map { "group-with-a-long-name-\($0)" }
        let setup = try await Setup(
            HostedUIServer.Options(
                callbackURLs: [Self.callback], logoutURLs: [Self.signedOut],
                users: [HostedUIServer.User("dana", password: "Passw0rd!", email: "dana@example.com", groups: groups)]))
        var browser = Browser(routes: setup.routes)
        let callback = try await browser.get(try await Self.signIn(setup, &browser, as: "dana"))
        #expect(callback.status == 500)
        #expect(callback.html.contains("over the 4096"))
        #expect(Self.tokenCookies(callback).isEmpty)
        try await setup.close()
    }
}
