import Amplify
import AmplifyAuthCore
import Foundation
import LocalAuthPlugin
import LocalAuthTestSupport
import Testing

/// A response as a framework's test client returns it.
public struct ScenarioResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: String

    public init(status: Int, headers: [(name: String, value: String)], body: String) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Every value of `name` (case-insensitive).
    public func values(of name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    /// The body as JSON (`null` when it is not JSON).
    public var json: JSONValue { (try? JSONDecoder().decode(JSONValue.self, from: Data(body.utf8))) ?? .null }
}

/// Sends one request to the app under test: method, path (with query), headers.
public typealias ScenarioSend = @Sendable (_ method: String, _ path: String, _ headers: [(String, String)]) async throws -> ScenarioResponse

/// The routes every framework's test app serves, the same on Hummingbird and Vapor, each behind
/// the framework's Amplify middleware:
///
/// - `GET /public` — `{"user": username or null}`, no policy.
/// - `GET /me` — `{"username", "sub", "groups", "scopes", "auth"}`, where `auth` is
///   `Amplify.Auth.getCurrentUser()` inside the request (the unchanged API acting as the user); 401 without a user.
/// - `POST /refresh` — `Amplify.Auth.fetchAuthSession(options: .forceRefresh())`.
/// - `POST /sign-out` — `Amplify.Auth.signOut()`.
/// - `POST /refresh-then-fail` — a forced refresh, then the route throws (`418` as the framework's HTTP error).
/// - `GET /admin` — group `admins` only (the framework's access middleware).
/// - `GET /write` — scope `api/write` only (the route helper).
public enum ScenarioRoutes {
    /// `/me`'s body.
    public static func me(_ user: AuthenticatedUser) async throws -> JSONValue {
        let current = try await Amplify.Auth.getCurrentUser()
        return [
            "username": .string(user.username), "sub": .string(user.sub), "groups": .array(user.groups.map(JSONValue.string)),
            "scopes": .array(user.scopes.map(JSONValue.string)), "auth": .string(current.username),
        ]
    }

    /// `/refresh`'s body.
    public static func refresh() async throws -> JSONValue {
        let session = try await Amplify.Auth.fetchAuthSession(options: .forceRefresh())
        return ["signedIn": .boolean(session.isSignedIn)]
    }

    /// `/sign-out`'s body.
    public static func signOut() async -> JSONValue {
        _ = await Amplify.Auth.signOut()
        return ["signedOut": true]
    }

    public static func text(_ value: JSONValue) -> String {
        String(decoding: (try? JSONEncoder().encode(value)) ?? Data(), as: UTF8.self)
    }
}

/// A local pool with users `ann` (in `admins`) and `ben`, signed in: their tokens and cookies.
public final class ScenarioPool: Sendable {
    public let fixture: LocalPoolFixture
    public let plugin: LocalAuthPlugin
    public let ann: StoredSession
    public let ben: StoredSession

    public init(_ overrides: [String: JSONValue] = [:]) async throws {
        fixture = try LocalPoolFixture(overrides)
        plugin = try fixture.plugin()
        _ = try await Self.signedIn(plugin, fixture, "ben")
        _ = try await Self.signedIn(plugin, fixture, "ann")
        try await plugin.addUser("ann", toGroup: "admins")
        ann = try await Self.signIn(plugin, "ann")
        ben = try await Self.signIn(plugin, "ben")
    }

    public static func signedIn(_ plugin: LocalAuthPlugin, _ fixture: LocalPoolFixture, _ username: String) async throws -> StoredSession {
        _ = try await plugin.signUp(
            username: username, password: "Passw0rd!",
            options: AuthSignUpRequest.Options(userAttributes: [AuthUserAttribute(.email, value: "\(username)@example.com")]))
        _ = try await plugin.confirmSignUp(for: username, confirmationCode: try await fixture.latestCode(plugin, for: username), options: nil)
        return try await signIn(plugin, username)
    }

    /// A fresh session of `username` (a sign-in in an empty context).
    public static func signIn(_ plugin: LocalAuthPlugin, _ username: String) async throws -> StoredSession {
        let context = try plugin.emptyServerContext()
        _ = try await context.run { try await plugin.signIn(username: username, password: "Passw0rd!", options: nil) }
        guard let session = await context.session.current else { throw AuthError.unknown("no session for \(username)") }
        return session
    }

    /// `Cookie` header value carrying `session` as Amplify JS's cookies.
    public static func cookieHeader(_ session: StoredSession, clientId: String = "local-client") -> String {
        AmplifyJSCookies.setCookies(clientId: clientId, session: session).map { $0.components(separatedBy: ";")[0] }.joined(separator: "; ")
    }

    public func close() async throws {
        try await fixture.close(plugin)
    }
}

/// The scenarios each framework's tests run against its app (see ``ScenarioRoutes``).
public enum MiddlewareScenarios {
    /// A bearer token and a cookie set become the user; unchanged `Amplify.Auth` acts as them; a
    /// repeated token hits the cache; no credentials reach public routes only.
    public static func authenticatesAndRunsAsTheUser(_ send: ScenarioSend, _ pool: ScenarioPool, cache: VerifiedTokenCache?) async throws {
        let bearer = try await send("GET", "/me", [("Authorization", "Bearer \(pool.ann.accessToken)")])
        #expect(bearer.status == 200, "\(bearer.body)")
        #expect(bearer.json["username"]?.stringValue == "ann")
        #expect(bearer.json["auth"]?.stringValue == "ann")
        #expect(bearer.json["sub"]?.stringValue == pool.ann.userId)
        #expect(bearer.json["groups"] == ["admins"])
        #expect(bearer.json["scopes"] == ["aws.cognito.signin.user.admin"])
        #expect(bearer.values(of: "Set-Cookie").isEmpty)
        let hits = cache?.statistics.hits ?? 0
        let again = try await send("GET", "/me", [("Authorization", "Bearer \(pool.ann.accessToken)")])
        #expect(again.json["username"]?.stringValue == "ann")
        #expect((cache?.statistics.hits ?? 0) == hits + 1)

        let cookies = try await send("GET", "/me", [("Cookie", "theme=dark; " + ScenarioPool.cookieHeader(pool.ben))])
        #expect(cookies.json["username"]?.stringValue == "ben")
        #expect(cookies.json["auth"]?.stringValue == "ben")
        #expect(cookies.json["groups"] == [])
        // Two Cookie headers (HTTP/2 sends one per cookie).
        let parts = ScenarioPool.cookieHeader(pool.ben).components(separatedBy: "; ")
        let split = try await send("GET", "/me", parts.map { ("Cookie", $0) })
        #expect(split.json["username"]?.stringValue == "ben")

        let anonymous = try await send("GET", "/public", [])
        #expect(anonymous.status == 200)
        #expect(anonymous.json["user"] == .null)
        let refused = try await send("GET", "/me", [])
        #expect(refused.status == 401)
        #expect(refused.values(of: "WWW-Authenticate") == ["Bearer realm=\"amplify\""])
    }

    /// RFC 6750's answers: 401 `invalid_token` for bad tokens, 400 for malformed credentials, 403
    /// for a user without the group or scope; never a 500, never the token in the answer.
    public static func refusesByRFC6750(_ send: ScenarioSend, _ pool: ScenarioPool, foreign: StoredSession) async throws {
        var tampered = Array(pool.ann.accessToken)
        tampered[tampered.count - 5] = tampered[tampered.count - 5] == "A" ? "B" : "A"
        let none = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJhbm4iLCJ0b2tlbl91c2UiOiJhY2Nlc3MifQ."
        for token in [String(tampered), foreign.accessToken, pool.ann.idToken, none, "garbage"] {
            let response = try await send("GET", "/me", [("Authorization", "Bearer \(token)")])
            #expect(response.status == 401, "\(response.body)")
            let challenge = response.values(of: "WWW-Authenticate").first ?? ""
            #expect(challenge.hasPrefix("Bearer realm=\"amplify\", error=\"invalid_token\", error_description=\""), "\(challenge)")
            #expect(!response.body.contains(token) && !challenge.contains(token))
            #expect(response.values(of: "Cache-Control") == ["no-store"])
        }
        // A public route refuses a bad token too: the middleware never lets one through as nobody.
        #expect(try await send("GET", "/public", [("Authorization", "Bearer garbage")]).status == 401)
        // ann's ID token with ben's access token, as cookies.
        let mixed = StoredSession(
            username: "ben", userId: pool.ben.userId, idToken: pool.ann.idToken, accessToken: pool.ben.accessToken, refreshToken: "",
            accessTokenExpiresAt: Date(), refreshTokenExpiresAt: nil)
        #expect(try await send("GET", "/me", [("Cookie", ScenarioPool.cookieHeader(mixed))]).status == 401)
        // LastAuthUser naming ann over ben's tokens.
        var renamed = pool.ben
        renamed.username = "ann"
        let impostor = try await send("GET", "/me", [("Cookie", ScenarioPool.cookieHeader(renamed))])
        #expect(impostor.status == 401)
        // The same Amplify cookie twice with different values, 1,000 cookies, two bearer headers.
        let base = "CognitoIdentityServiceProvider.local-client"
        let duplicated = try await send("GET", "/me", [("Cookie", "\(base).LastAuthUser=ann; \(base).LastAuthUser=ben")])
        #expect(duplicated.status == 400)
        #expect(duplicated.values(of: "WWW-Authenticate").first?.contains("invalid_request") == true)
        let many = (0..<1_000).map { "c\($0)=v" }.joined(separator: "; ")
        #expect(try await send("GET", "/me", [("Cookie", many)]).status == 400)
        let two = try await send(
            "GET", "/me", [("Authorization", "Bearer \(pool.ann.accessToken)"), ("Authorization", "Bearer \(pool.ben.accessToken)")])
        #expect(two.status == 400)

        let admin = try await send("GET", "/admin", [("Authorization", "Bearer \(pool.ann.accessToken)")])
        #expect(admin.status == 200)
        let notAdmin = try await send("GET", "/admin", [("Authorization", "Bearer \(pool.ben.accessToken)")])
        #expect(notAdmin.status == 403)
        #expect(notAdmin.values(of: "WWW-Authenticate").first?.contains("error=\"insufficient_scope\"") == true)
        #expect(try await send("GET", "/admin", []).status == 401)
        let write = try await send("GET", "/write", [("Authorization", "Bearer \(pool.ann.accessToken)")])
        #expect(write.status == 403)
        #expect(write.values(of: "WWW-Authenticate").first?.hasSuffix("scope=\"api/write\"") == true)
    }

    /// Tokens refreshed in a request go back as `Set-Cookie`, also when the route throws; a
    /// sign-out clears the cookies and the replayed cookies are refused at once.
    public static func writesCookiesBack(_ send: ScenarioSend, _ pool: ScenarioPool) async throws {
        let session = try await ScenarioPool.signIn(pool.plugin, "ben")
        let cookie = ScenarioPool.cookieHeader(session)
        let refreshed = try await send("POST", "/refresh", [("Cookie", cookie)])
        #expect(refreshed.status == 200, "\(refreshed.body)")
        let set = refreshed.values(of: "Set-Cookie")
        #expect(set.contains { $0.hasPrefix("CognitoIdentityServiceProvider.local-client.ben.accessToken=") && !$0.contains(session.accessToken) })
        #expect(set.allSatisfy { $0.contains("HttpOnly") && $0.contains("SameSite=Lax") && $0.contains("Path=/") })

        let other = try await ScenarioPool.signIn(pool.plugin, "ben")
        let failed = try await send("POST", "/refresh-then-fail", [("Cookie", ScenarioPool.cookieHeader(other))])
        #expect(failed.status == 418)
        #expect(failed.values(of: "Set-Cookie").contains { $0.hasPrefix("CognitoIdentityServiceProvider.local-client.ben.refreshToken=") })

        let last = try await ScenarioPool.signIn(pool.plugin, "ben")
        let lastCookie = ScenarioPool.cookieHeader(last)
        #expect(try await send("GET", "/me", [("Cookie", lastCookie)]).status == 200)
        let out = try await send("POST", "/sign-out", [("Cookie", lastCookie)])
        #expect(out.status == 200)
        #expect(out.values(of: "Set-Cookie").contains { $0.contains(".accessToken=") && $0.contains("Max-Age=0") })
        #expect(try await send("GET", "/me", [("Cookie", lastCookie)]).status == 401)
    }

    /// 2,000 interleaved requests of two users, 16 at a time: every answer names its own user.
    public static func interleavedUsersStayApart(_ send: @escaping ScenarioSend, _ pool: ScenarioPool, count: Int = 2_000) async throws {
        let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
            var next = 0
            var mismatches = 0
            func add() {
                let index = next
                next += 1
                let (name, session) = index % 2 == 0 ? ("ann", pool.ann) : ("ben", pool.ben)
                let header = index % 4 < 2 ? ("Authorization", "Bearer \(session.accessToken)") : ("Cookie", ScenarioPool.cookieHeader(session))
                group.addTask {
                    let response = try await send("GET", "/me", [header])
                    return response.json["username"]?.stringValue == name && response.json["auth"]?.stringValue == name ? 0 : 1
                }
            }
            for _ in 0..<16 { add() }
            while let result = try await group.next() {
                mismatches += result
                if next < count { add() }
            }
            return mismatches
        }
        #expect(mismatches == 0)
    }
}
