#if AmplifyVapor
    import Amplify
    import AmplifyAuthCore
    import AmplifyVapor
    import Foundation
    import HTTPServerTestSupport
    import LocalAuthPlugin
    import Testing
    import Vapor
    import VaporTesting

    @Suite("Vapor: requests authenticated and run as their users")
    struct AmplifyVaporTests {
        /// The scenario routes (``ScenarioRoutes``) behind `middleware`.
        static func routes(_ app: Application, _ middleware: AmplifyAuthMiddleware) {
            let routes = app.grouped(middleware)
            routes.get("public") { req in json(["user": req.amplify.user.map { .string($0.username) } ?? .null]) }
            routes.get("me") { req in json(try await ScenarioRoutes.me(try req.amplify.requireUser())) }
            routes.post("refresh") { _ in json(try await ScenarioRoutes.refresh()) }
            routes.post("sign-out") { _ in json(await ScenarioRoutes.signOut()) }
            routes.post("refresh-then-fail") { _ -> Response in
                _ = try await ScenarioRoutes.refresh()
                throw Abort(.imATeapot)
            }
            routes.grouped(AmplifyAccessMiddleware(.group("admins"))).get("admin") { _ in json(["admin": true]) }
            routes.get("write") { req in
                _ = try req.amplify.requireUser(.scope("api/write"))
                return json(["write": true])
            }
        }

        static func json(_ value: JSONValue) -> Response {
            Response(status: .ok, headers: ["Content-Type": "application/json"], body: .init(string: ScenarioRoutes.text(value)))
        }

        static func middleware(_ pool: ScenarioPool, cache: VerifiedTokenCache? = VerifiedTokenCache()) -> AmplifyAuthMiddleware {
            AmplifyAuthMiddleware(AmplifyAuthenticator(plugin: pool.plugin, cache: cache, cookieAttributes: .init(secure: false, httpOnly: true)))
        }

        /// A ``ScenarioSend`` through Vapor's in-memory test client.
        static func sender(_ app: Application) throws -> ScenarioSend {
            let tester = try app.testing()
            return { verb, path, headers in
                let response = try await tester.performTest(
                    request: TestingHTTPRequest(
                        method: HTTPMethod(rawValue: verb), url: URI(string: path), headers: HTTPHeaders(headers), body: ByteBuffer()))
                return ScenarioResponse(
                    status: Int(response.status.code), headers: response.headers.map { (name: $0.name, value: $0.value) },
                    body: String(buffer: response.body))
            }
        }

        /// A ``ScenarioSend`` over a real socket: the app's server started on 127.0.0.1 (any free
        /// port), requests sent with Vapor's own client.
        static func liveSender(_ app: Application) async throws -> ScenarioSend {
            try await app.server.start(address: .hostname("127.0.0.1", port: 0))
            let port = app.http.server.shared.localAddress?.port ?? 0
            let client = app.client
            return { verb, path, headers in
                let response = try await client.send(
                    HTTPMethod(rawValue: verb), headers: HTTPHeaders(headers), to: URI(string: "http://127.0.0.1:\(port)\(path)"))
                return ScenarioResponse(
                    status: Int(response.status.code), headers: response.headers.map { (name: $0.name, value: $0.value) },
                    body: response.body.map { String(buffer: $0) } ?? "")
            }
        }

        static func withScenarioApp(_ middleware: AmplifyAuthMiddleware, _ body: (Application) async throws -> Void) async throws {
            try await withApp(configure: { app in routes(app, middleware) }, body)
        }

        /// A ``ScenarioFormSend`` through Vapor's in-memory test client.
        static func formSender(_ app: Application) throws -> ScenarioFormSend {
            let tester = try app.testing()
            return { verb, path, headers, body in
                let response = try await tester.performTest(
                    request: TestingHTTPRequest(
                        method: HTTPMethod(rawValue: verb), url: URI(string: path), headers: HTTPHeaders(headers), body: ByteBuffer(string: body)))
                return ScenarioResponse(
                    status: Int(response.status.code), headers: response.headers.map { (name: $0.name, value: $0.value) },
                    body: String(buffer: response.body))
            }
        }

        @Test(
            "the sign-in routes (addAuthRoutes): sign-up, confirm, sign-in to HttpOnly cookies the middleware accepts, sign-out; CSRF, origin and size refused"
        )
        func signInRoutes() async throws {
            let pool = try await ScenarioPool()
            let routes = try SignInRouteScenarios.routes(pool)
            try await withApp(
                configure: { app in
                    Self.routes(app, Self.middleware(pool))
                    app.addAuthRoutes(routes)
                }
            ) { app in
                try await SignInRouteScenarios.localFlow(try Self.formSender(app), pool)
            }
            try await pool.close()
        }

        @Test("a bearer token or Amplify JS's cookies log the user in (req.auth), and unchanged Amplify.Auth code acts as the user")
        func authenticates() async throws {
            let pool = try await ScenarioPool()
            let cache = VerifiedTokenCache()
            try await Self.withScenarioApp(Self.middleware(pool, cache: cache)) { app in
                try await MiddlewareScenarios.authenticatesAndRunsAsTheUser(try Self.sender(app), pool, cache: cache)
            }
            try await pool.close()
        }

        @Test("bad credentials get RFC 6750's 400 and 401 with WWW-Authenticate, a user without the group or scope 403")
        func refuses() async throws {
            let pool = try await ScenarioPool()
            let foreign = try await ScenarioPool()
            try await Self.withScenarioApp(Self.middleware(pool)) { app in
                try await MiddlewareScenarios.refusesByRFC6750(try Self.sender(app), pool, foreign: foreign.ann)
            }
            try await pool.close()
            try await foreign.close()
        }

        @Test("tokens refreshed in a request go back as Set-Cookie, also when the route throws; a sign-out's cookies are refused at once")
        func writesCookiesBack() async throws {
            let pool = try await ScenarioPool()
            try await Self.withScenarioApp(Self.middleware(pool)) { app in
                try await MiddlewareScenarios.writesCookiesBack(try Self.sender(app), pool)
            }
            try await pool.close()
        }

        @Test("2,000 interleaved requests of two users over a real socket: every response names its own user")
        func interleaved() async throws {
            let pool = try await ScenarioPool()
            try await Self.withScenarioApp(Self.middleware(pool)) { app in
                try await MiddlewareScenarios.interleavedUsersStayApart(try await Self.liveSender(app), pool)
                await app.server.shutdown()
            }
            try await pool.close()
        }

        @Test("req.auth.require(AuthenticatedUser.self) works as for any Vapor authenticatable; tenants by host")
        func authenticatableAndTenants() async throws {
            let first = try await ScenarioPool()
            let second = try await ScenarioPool()
            let authenticator = AmplifyAuthenticator(tenants: { host, _ in
                switch host {
                case "a.example.com": first.plugin
                case "b.example.com": second.plugin
                default: nil
                }
            })
            try await withApp(configure: { app in
                app.grouped(AmplifyAuthMiddleware(authenticator)).get("me") { req in try req.auth.require(AuthenticatedUser.self).username }
            }) { app in
                func get(_ host: String, _ token: String) async throws -> (Int, String) {
                    let response = try await app.testing().performTest(
                        request: TestingHTTPRequest(
                            method: .GET, url: URI(string: "/me"), headers: ["Host": host, "Authorization": "Bearer \(token)"], body: ByteBuffer()))
                    return (Int(response.status.code), String(buffer: response.body))
                }
                let ann = try await get("a.example.com", first.ann.accessToken)
                #expect(ann.0 == 200 && ann.1 == "ann")
                let ben = try await get("b.example.com", second.ben.accessToken)
                #expect(ben.0 == 200 && ben.1 == "ben")
                #expect(try await get("b.example.com", first.ann.accessToken).0 == 401)
                #expect(try await get("c.example.com", first.ann.accessToken).0 == 500)
            }
            try await first.close()
            try await second.close()
        }
    }
#endif
