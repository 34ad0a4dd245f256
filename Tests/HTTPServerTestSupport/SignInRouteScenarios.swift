import Amplify
import AmplifyAuthCore
import AmplifyTestKit
import Foundation
import Testing

/// Sends one request with a body to the app under test: method, path (with query), headers, body.
public typealias ScenarioFormSend =
    @Sendable (_ method: String, _ path: String, _ headers: [(String, String)], _ body: String) async throws -> ScenarioResponse

/// The server-owned sign-in routes through each framework's adapter (`addAuthRoutes`), the
/// framework's app serving them at `/auth/…` beside `GET /me` behind its Amplify middleware.
public enum SignInRouteScenarios {
    /// The app's origin in the scenarios.
    public static let origin = "http://127.0.0.1:8080"

    /// The routes for `pool`, showing its outbox on the confirm page.
    public static func routes(_ pool: ScenarioPool) throws -> AuthRoutes {
        let (plugin, fixture) = (pool.plugin, pool.fixture)
        return try AuthRoutes(
            plugin: plugin,
            configuration: .init(
                origin: origin, afterSignIn: "/me", outbox: { username in (try? await fixture.latestCode(plugin, for: username)).map { [$0] } ?? [] })
        )
    }

    /// A browser: its cookies and the last form's CSRF token.
    struct Browser {
        let send: ScenarioFormSend
        var jar = CookieJar()
        var csrf = ""

        mutating func get(_ path: String) async throws -> ScenarioResponse {
            try await request("GET", path, body: "", extra: [])
        }

        mutating func post(_ path: String, _ form: [(String, String)], origin: String = SignInRouteScenarios.origin, csrf: Bool = true)
            async throws -> ScenarioResponse
        {
            let fields = form + (csrf ? [("csrf", self.csrf)] : [])
            let body = fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
            return try await request(
                "POST", path, body: body, extra: [("Content-Type", "application/x-www-form-urlencoded"), ("Origin", origin)])
        }

        mutating func request(_ method: String, _ path: String, body: String, extra: [(String, String)]) async throws -> ScenarioResponse {
            var headers = extra + [("Sec-Fetch-Site", "same-origin")]
            if !jar.values.isEmpty { headers.append(("Cookie", jar.header)) }
            let response = try await send(method, path, headers, body)
            jar.apply(response.values(of: "Set-Cookie"))
            if let range = response.body.range(of: "name=\"csrf\" value=\"") {
                csrf = String(response.body[range.upperBound...].prefix { $0 != "\"" })
            }
            return response
        }
    }

    /// Sign-up, the outbox's code, confirmation and sign-in through the framework; the token
    /// cookies HttpOnly and accepted by the middleware on `/me`; sign-out clears and revokes them;
    /// a form without its token or from another origin, and an oversized body, are refused.
    public static func localFlow(_ send: @escaping ScenarioFormSend, _ pool: ScenarioPool) async throws {
        var browser = Browser(send: send)
        let signUpPage = try await browser.get("/auth/sign-up")
        #expect(signUpPage.status == 200)
        #expect(signUpPage.values(of: "Content-Type").first?.hasPrefix("text/html") == true)
        #expect(signUpPage.values(of: "X-Frame-Options") == ["DENY"])
        let signedUp = try await browser.post("/auth/sign-up", [("username", "dora"), ("email", "dora@example.com"), ("password", "Passw0rd!")])
        #expect(signedUp.status == 303)
        #expect(signedUp.values(of: "Location") == ["/auth/confirm?username=dora"])
        let code = try await pool.fixture.latestCode(pool.plugin, for: "dora")
        #expect(try await browser.get("/auth/confirm?username=dora").body.contains(code))
        #expect(try await browser.post("/auth/confirm", [("username", "dora"), ("code", code)]).status == 303)

        #expect(try await browser.post("/auth/sign-in", [("username", "dora"), ("password", "Passw0rd!")], csrf: false).status == 403)
        let otherOrigin = try await browser.post("/auth/sign-in", [("username", "dora"), ("password", "Passw0rd!")], origin: "https://evil.example")
        #expect(otherOrigin.status == 403)
        #expect(otherOrigin.values(of: "Set-Cookie").allSatisfy { !$0.hasPrefix("CognitoIdentityServiceProvider") })

        let signedIn = try await browser.post("/auth/sign-in", [("username", "dora"), ("password", "Passw0rd!")])
        #expect(signedIn.status == 303)
        #expect(signedIn.values(of: "Location") == ["/me"])
        let tokenCookies = signedIn.values(of: "Set-Cookie").filter { $0.hasPrefix("CognitoIdentityServiceProvider") }
        #expect(tokenCookies.count == 5)
        #expect(tokenCookies.allSatisfy { $0.contains("; HttpOnly") && $0.contains("; SameSite=Lax") })
        let me = try await browser.get("/me")
        #expect(me.status == 200)
        #expect(me.json["username"]?.stringValue == "dora")
        #expect(me.json["auth"]?.stringValue == "dora")
        let oldCookies = browser.jar.header

        let signedOut = try await browser.post("/auth/sign-out", [])
        #expect(signedOut.status == 303)
        #expect(signedOut.values(of: "Location") == ["/"])
        #expect(browser.jar.values.keys.allSatisfy { !$0.hasPrefix("CognitoIdentityServiceProvider") })
        #expect(try await send("GET", "/me", [("Cookie", oldCookies)], "").status == 401)

        let oversized = try await browser.post("/auth/sign-in", [("username", String(repeating: "a", count: 20_000)), ("password", "x")])
        #expect(oversized.status == 413)
    }
}
