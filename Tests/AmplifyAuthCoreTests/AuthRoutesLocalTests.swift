import Amplify
import AmplifyAuthCore
import AmplifyTestKit
import Foundation
import LocalAuthPlugin
import LocalAuthTestSupport
import Testing

/// The server-owned sign-in routes on the embedded local pool, driven as a browser would: pages,
/// forms with their CSRF token, redirects and cookies.
@Suite("Server sign-in routes on the local pool")
struct AuthRoutesLocalTests {
    static let origin = "http://127.0.0.1:8080"

    /// A browser on one site: its cookies, and the CSRF token of the last form it saw.
    struct Browser {
        let routes: AuthRoutes
        var jar = CookieJar()
        var csrf = ""

        mutating func get(_ path: String, fetchSite: String? = "same-origin") async throws -> AuthRouteResponse {
            let (route, query) = Self.split(path)
            let response = try #require(
                await routes.handle(AuthRouteRequest(method: "GET", path: route, query: query, cookies: jar.headers, fetchSite: fetchSite)))
            jar.apply(response.setCookies)
            if let token = Self.hidden("csrf", in: response.html) { csrf = token }
            return response
        }

        mutating func post(_ path: String, _ form: [String: String], origin: String? = AuthRoutesLocalTests.origin, withCSRF: Bool = true)
            async throws -> AuthRouteResponse
        {
            var fields = form
            if withCSRF { fields["csrf"] = csrf }
            let response = try #require(
                await routes.handle(
                    AuthRouteRequest(method: "POST", path: path, form: fields, cookies: jar.headers, origin: origin, fetchSite: "same-origin")))
            jar.apply(response.setCookies)
            if let token = Self.hidden("csrf", in: response.html) { csrf = token }
            return response
        }

        static func split(_ path: String) -> (String, [String: String]) {
            let parts = path.split(separator: "?", maxSplits: 1)
            let query = parts.count > 1 ? AuthRouteRequest.formFields(String(parts[1])) : [:]
            return (String(parts[0]), query)
        }

        static func hidden(_ name: String, in html: String) -> String? {
            guard let range = html.range(of: "name=\"\(name)\" value=\"") else { return nil }
            return String(html[range.upperBound...].prefix { $0 != "\"" })
        }
    }

    static func routes(_ plugin: LocalAuthPlugin, _ fixture: LocalPoolFixture) throws -> AuthRoutes {
        try AuthRoutes(
            plugin: plugin,
            configuration: .init(
                origin: origin, afterSignIn: "/me",
                outbox: { username in (try? await fixture.latestCode(plugin, for: username)).map { [$0] } ?? [] }))
    }

    static func tokenCookieNames(_ response: AuthRouteResponse) -> [String] {
        response.setCookies.filter { $0.hasPrefix("CognitoIdentityServiceProvider") && !$0.contains("Max-Age=0") }
    }

    @Test("sign up, confirm with the outbox code, sign in: HttpOnly token cookies the authenticator accepts; sign out clears and revokes them")
    func fullFlow() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        var browser = Browser(routes: try Self.routes(plugin, fixture))

        let signUpPage = try await browser.get("/auth/sign-up")
        #expect(signUpPage.status == 200)
        for field in ["username", "email", "password"] { #expect(signUpPage.html.contains("name=\"\(field)\"")) }
        #expect(!browser.csrf.isEmpty)
        #expect(browser.jar.attributes["com.amplify.server_auth.csrf"]?["httponly"] != nil)
        let signedUp = try await browser.post("/auth/sign-up", ["username": "ann", "email": "ann@example.com", "password": "Passw0rd!"])
        #expect(signedUp.status == 303)
        #expect(signedUp.location == "/auth/confirm?username=ann")
        let confirmPage = try await browser.get("/auth/confirm?username=ann")
        let code = try await fixture.latestCode(plugin, for: "ann")
        #expect(confirmPage.html.contains("<pre id=\"outbox\">\(code)</pre>"))
        let confirmed = try await browser.post("/auth/confirm", ["username": "ann", "code": code])
        #expect(confirmed.location == "/auth/sign-in?notice=confirmed&username=ann")
        #expect(try await browser.get(try #require(confirmed.location)).html.contains("Your account is confirmed"))

        let signedIn = try await browser.post("/auth/sign-in", ["username": "ann", "password": "Passw0rd!"])
        #expect(signedIn.status == 303)
        #expect(signedIn.location == "/me")
        let tokenCookies = Self.tokenCookieNames(signedIn)
        #expect(tokenCookies.count == 5)
        for cookie in tokenCookies {
            #expect(cookie.contains("; HttpOnly"))
            #expect(cookie.contains("; SameSite=Lax"))
            #expect(cookie.contains("; Path=/;"))
            #expect(!cookie.contains("; Secure"))  // an http origin
        }
        let authenticator = AmplifyAuthenticator(plugin: plugin)
        let request = try await authenticator.authenticate(RequestCredentials(authorization: [], cookies: browser.jar.headers))
        #expect(request.user?.username == "ann")
        let oldCookies = browser.jar.headers

        let signOutPage = try await browser.get("/auth/sign-out", fetchSite: "cross-site")
        #expect(signOutPage.status == 200)
        #expect(signOutPage.setCookies.allSatisfy { !$0.hasPrefix("CognitoIdentityServiceProvider") })
        let signedOut = try await browser.post("/auth/sign-out", [:])
        #expect(signedOut.location == "/")
        #expect(browser.jar.values.keys.allSatisfy { !$0.hasPrefix("CognitoIdentityServiceProvider") })
        await #expect(throws: AuthChallenge.self) {
            _ = try await authenticator.authenticate(RequestCredentials(authorization: [], cookies: oldCookies))
        }
        try await fixture.close(plugin)
    }

    @Test("a forgotten password: the code from the outbox and a new password; the old one no longer signs in")
    func passwordReset() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        try await signUpAndIn(plugin, fixture, "bob")
        var browser = Browser(routes: try Self.routes(plugin, fixture))
        _ = try await browser.get("/auth/forgot-password")
        let resetPage = try await browser.post("/auth/forgot-password", ["username": "bob"])
        #expect(resetPage.status == 200)
        let code = try await fixture.latestCode(plugin, for: "bob")
        #expect(resetPage.html.contains(code))
        let reset = try await browser.post("/auth/reset-password", ["username": "bob", "code": code, "password": "N3w-Passw0rd!"])
        #expect(reset.location == "/auth/sign-in?notice=reset&username=bob")
        let old = try await browser.post("/auth/sign-in", ["username": "bob", "password": "Passw0rd!"])
        #expect(old.status == 401)
        #expect(Self.tokenCookieNames(old).isEmpty)
        let new = try await browser.post("/auth/sign-in", ["username": "bob", "password": "N3w-Passw0rd!"])
        #expect(new.status == 303)
        #expect(Self.tokenCookieNames(new).count == 5)
        // Whether a user exists is not told.
        let unknown = try await browser.post("/auth/forgot-password", ["username": "nobody"])
        #expect(unknown.status == 200)
        try await fixture.close(plugin)
    }

    @Test("forms without their CSRF token, from another origin or site, off-site redirects and wrong passwords are refused without a token cookie")
    func refusals() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        try await signUpAndIn(plugin, fixture, "cara")
        var browser = Browser(routes: try Self.routes(plugin, fixture))
        _ = try await browser.get("/auth/sign-in")
        let form = ["username": "cara", "password": "Passw0rd!"]

        let noToken = try await browser.post("/auth/sign-in", form, withCSRF: false)
        #expect(noToken.status == 403)
        var forged = browser
        forged.csrf = String(repeating: "A", count: 43)
        #expect(try await forged.post("/auth/sign-in", form).status == 403)
        let otherOrigin = try await browser.post("/auth/sign-in", form, origin: "https://evil.example")
        #expect(otherOrigin.status == 403)
        let crossSite = try #require(
            await browser.routes.handle(
                AuthRouteRequest(
                    method: "POST", path: "/auth/sign-in", form: form.merging(["csrf": browser.csrf]) { $1 }, cookies: browser.jar.headers,
                    fetchSite: "cross-site")))
        #expect(crossSite.status == 403)
        for target in ["//evil.example/", "https://evil.example/", "/\\evil.example", "javascript:alert(1)", "/ok\r\nSet-Cookie: x=y"] {
            let response = try await browser.get(
                "/auth/sign-in?redirect=" + (target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
            #expect(response.status == 400, "\(target)")
            let posted = try await browser.post("/auth/sign-in", form.merging(["redirect": target]) { $1 })
            #expect(posted.status == 400, "\(target)")
            #expect(Self.tokenCookieNames(posted).isEmpty)
        }
        let wrong = try await browser.post("/auth/sign-in", ["username": "cara", "password": "Wr0ng-pass!"])
        #expect(wrong.status == 401)
        #expect(Self.tokenCookieNames(wrong).isEmpty)
        #expect(!wrong.html.contains("Wr0ng-pass!"))
        let escaped = try await browser.post("/auth/sign-in", ["username": "<script>alert(1)</script>", "password": "x"])
        #expect(!escaped.html.contains("<script>alert(1)</script>"))
        #expect(escaped.html.contains("&lt;script&gt;"))
        #expect(try await browser.get("/auth/sign-in-callback?code=x&state=y").status == 404)
        #expect(await browser.routes.handle(AuthRouteRequest(method: "GET", path: "/me")) == nil)
        #expect(try #require(await browser.routes.handle(AuthRouteRequest(method: "DELETE", path: "/auth/sign-in"))).status == 405)
        // A good sign-in with a local redirect goes there.
        let good = try await browser.post("/auth/sign-in", form.merging(["redirect": "/me/files?x=1"]) { $1 })
        #expect(good.location == "/me/files?x=1")
        try await fixture.close(plugin)
    }

    @Test("Amplify cookies the strict reader refuses (the same name twice, from two paths) do not keep a user from signing in or out")
    func duplicatedCookiesDoNotLockOut() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        try await signUpAndIn(plugin, fixture, "dan")
        var browser = Browser(routes: try Self.routes(plugin, fixture))
        _ = try await browser.get("/auth/sign-in")
        let stale = "CognitoIdentityServiceProvider.local-client.LastAuthUser=someone-else"
        var withStale = browser
        withStale.jar.apply([stale + "; Path=/app"])
        // The jar keeps one value per name: send the second copy as a second header, as a browser
        // sends cookies of two paths.
        let signedIn = try #require(
            await browser.routes.handle(
                AuthRouteRequest(
                    method: "POST", path: "/auth/sign-in", form: ["username": "dan", "password": "Passw0rd!", "csrf": browser.csrf],
                    cookies: browser.jar.headers + ["CognitoIdentityServiceProvider.local-client.LastAuthUser=dan", stale], origin: Self.origin,
                    fetchSite: "same-origin")))
        #expect(signedIn.status == 303)
        browser.jar.apply(signedIn.setCookies)
        let signedOut = try #require(
            await browser.routes.handle(
                AuthRouteRequest(
                    method: "POST", path: "/auth/sign-out", form: ["csrf": browser.csrf], cookies: browser.jar.headers + [stale],
                    origin: Self.origin, fetchSite: "same-origin")))
        #expect(signedOut.status == 303)
        #expect(signedOut.setCookies.contains { $0.hasPrefix("CognitoIdentityServiceProvider.local-client.") && $0.contains("Max-Age=0") })
        try await fixture.close(plugin)
    }

    @Test("bad configurations are refused when the routes are made: an origin with a path, a prefix that is not a path, SameSite=None")
    func configurationChecks() throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        #expect(throws: AuthError.self) { try AuthRoutes(plugin: plugin, configuration: .init(origin: "https://app.example.com/app")) }
        #expect(throws: AuthError.self) { try AuthRoutes(plugin: plugin, configuration: .init(origin: "app.example.com")) }
        #expect(throws: AuthError.self) { try AuthRoutes(plugin: plugin, configuration: .init(origin: Self.origin, prefix: "auth")) }
        #expect(throws: AuthError.self) { try AuthRoutes(plugin: plugin, configuration: .init(origin: Self.origin, afterSignIn: "//x")) }
        #expect(throws: AuthError.self) { try AuthRoutes(plugin: plugin, configuration: .init(origin: Self.origin, sameSite: "None")) }
        let secure = try AuthRoutes(plugin: plugin, configuration: .init(origin: "https://app.example.com", sameSite: "Strict"))
        #expect(secure.tokenCookies.secure)
        #expect(secure.tokenCookies.httpOnly)
        #expect(secure.tokenCookies.sameSite == "Strict")
    }
}
