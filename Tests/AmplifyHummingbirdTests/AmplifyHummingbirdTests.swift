#if AmplifyHummingbird
    import Amplify
    import AmplifyAuthCore
    import AmplifyHummingbird
    import Foundation
    import HTTPServerTestSupport
    import HTTPTypes
    import Hummingbird
    import HummingbirdAuth
    import HummingbirdTesting
    import LocalAuthPlugin
    import AmplifyTestKit
    import Testing
    import Tracing

    @Suite("Hummingbird: requests authenticated and run as their users")
    struct AmplifyHummingbirdTests {
        typealias Context = BasicAuthRequestContext<AuthenticatedUser>

        /// The scenario routes (``ScenarioRoutes``) behind `middleware`.
        static func app(_ middleware: AmplifyAuthMiddleware<Context>) -> some ApplicationProtocol {
            let router = Router(context: Context.self)
            let routes = router.group().add(middleware: middleware)
            routes.get("/public") { _, context in json(["user": context.identity.map { .string($0.username) } ?? .null]) }
            routes.get("/me") { _, context in json(try await ScenarioRoutes.me(try context.requireUser())) }
            routes.post("/refresh") { _, _ in json(try await ScenarioRoutes.refresh()) }
            routes.post("/sign-out") { _, _ in json(await ScenarioRoutes.signOut()) }
            routes.post("/refresh-then-fail") { _, _ -> Response in
                _ = try await ScenarioRoutes.refresh()
                throw HTTPError(HTTPResponse.Status(code: 418))
            }
            routes.group("/admin").add(middleware: AmplifyAccessMiddleware(.group("admins"))).get { _, _ in json(["admin": true]) }
            routes.get("/write") { _, context in
                _ = try context.requireUser(.scope("api/write"))
                return json(["write": true])
            }
            return Application(router: router)
        }

        static func json(_ value: JSONValue) -> Response {
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: ScenarioRoutes.text(value))))
        }

        /// A ``ScenarioSend`` through Hummingbird's test client.
        static func sender(_ client: any TestClientProtocol) -> ScenarioSend {
            { method, path, headers in
                var fields = HTTPFields()
                for (name, value) in headers {
                    if let field = HTTPField.Name(name) { fields.append(HTTPField(name: field, value: value)) }
                }
                let response = try await client.execute(uri: path, method: HTTPRequest.Method(method) ?? .get, headers: fields)
                return ScenarioResponse(
                    status: response.status.code, headers: response.headers.map { (name: $0.name.canonicalName, value: $0.value) },
                    body: String(buffer: response.body))
            }
        }

        static func middleware(_ pool: ScenarioPool, cache: VerifiedTokenCache? = VerifiedTokenCache()) -> AmplifyAuthMiddleware<Context> {
            AmplifyAuthMiddleware(AmplifyAuthenticator(plugin: pool.plugin, cache: cache, cookieAttributes: .init(secure: false, httpOnly: true)))
        }

        /// A ``ScenarioFormSend`` through Hummingbird's test client.
        static func formSender(_ client: any TestClientProtocol) -> ScenarioFormSend {
            { method, path, headers, body in
                var fields = HTTPFields()
                for (name, value) in headers {
                    if let field = HTTPField.Name(name) { fields.append(HTTPField(name: field, value: value)) }
                }
                let response = try await client.execute(
                    uri: path, method: HTTPRequest.Method(method) ?? .get, headers: fields, body: ByteBuffer(string: body))
                return ScenarioResponse(
                    status: response.status.code, headers: response.headers.map { (name: $0.name.canonicalName, value: $0.value) },
                    body: String(buffer: response.body))
            }
        }

        @Test(
            "the sign-in routes (addAuthRoutes): sign-up, confirm, sign-in to HttpOnly cookies the middleware accepts, sign-out; CSRF, origin and size refused"
        )
        func signInRoutes() async throws {
            let pool = try await ScenarioPool()
            let router = Router(context: Context.self)
            router.addAuthRoutes(try SignInRouteScenarios.routes(pool))
            router.group().add(middleware: Self.middleware(pool)).get("/me") { _, context in
                Self.json(try await ScenarioRoutes.me(try context.requireUser()))
            }
            try await Application(router: router).test(.router) { client in
                try await SignInRouteScenarios.localFlow(Self.formSender(client), pool)
            }
            try await pool.close()
        }

        @Test("a bearer token or Amplify JS's cookies become context.identity, and unchanged Amplify.Auth code acts as the user")
        func authenticates() async throws {
            let pool = try await ScenarioPool()
            let cache = VerifiedTokenCache()
            try await Self.app(Self.middleware(pool, cache: cache)).test(.router) { client in
                try await MiddlewareScenarios.authenticatesAndRunsAsTheUser(Self.sender(client), pool, cache: cache)
            }
            try await pool.close()
        }

        @Test("bad credentials get RFC 6750's 400 and 401 with WWW-Authenticate, a user without the group or scope 403")
        func refuses() async throws {
            let pool = try await ScenarioPool()
            let foreign = try await ScenarioPool()
            try await Self.app(Self.middleware(pool)).test(.router) { client in
                try await MiddlewareScenarios.refusesByRFC6750(Self.sender(client), pool, foreign: foreign.ann)
            }
            try await pool.close()
            try await foreign.close()
        }

        @Test("tokens refreshed in a request go back as Set-Cookie, also when the route throws; a sign-out's cookies are refused at once")
        func writesCookiesBack() async throws {
            let pool = try await ScenarioPool()
            try await Self.app(Self.middleware(pool)).test(.router) { client in
                try await MiddlewareScenarios.writesCookiesBack(Self.sender(client), pool)
            }
            try await pool.close()
        }

        @Test("2,000 interleaved requests of two users over a real socket: every response names its own user")
        func interleaved() async throws {
            let pool = try await ScenarioPool()
            try await Self.app(Self.middleware(pool)).test(.live) { client in
                try await MiddlewareScenarios.interleavedUsersStayApart(Self.sender(client), pool)
            }
            try await pool.close()
        }

        @Test("tenants by path: each pool's users under its own prefix, another pool's token refused")
        func tenantsByPath() async throws {
            let first = try await ScenarioPool()
            let second = try await ScenarioPool()
            let authenticator = AmplifyAuthenticator(tenants: { _, path in
                path.hasPrefix("/b/") ? second.plugin : path.hasPrefix("/a/") ? first.plugin : nil
            })
            let router = Router(context: Context.self)
            let tenants = router.group().add(middleware: AmplifyAuthMiddleware(authenticator))
            for prefix in ["/a", "/b", "/c"] {
                tenants.get("\(prefix)/me") { _, context in Self.json(try await ScenarioRoutes.me(try context.requireUser())) }
            }
            try await Application(router: router).test(.router) { (client: any TestClientProtocol) async throws in
                func get(_ path: String, _ token: String) async throws -> Int {
                    try await client.execute(uri: path, method: .get, headers: [.authorization: "Bearer \(token)"]).status.code
                }
                #expect(try await get("/a/me", first.ann.accessToken) == 200)
                #expect(try await get("/b/me", second.ann.accessToken) == 200)
                #expect(try await get("/b/me", first.ann.accessToken) == 401)
                #expect(try await get("/a/me", second.ben.accessToken) == 401)
                #expect(try await get("/c/me", first.ann.accessToken) == 500)
            }
            try await first.close()
            try await second.close()
        }

        @Test("hummingbird-auth's own RolePolicy reads the user's groups")
        func rolePolicy() async throws {
            let pool = try await ScenarioPool()
            let router = Router(context: Context.self)
            router.group().add(middleware: Self.middleware(pool))
                .add(middleware: AuthorizationPolicyMiddleware(RolePolicy<AuthenticatedUser>("admins"), context: Context.self))
                .get("/admin") { _, _ in "ok" }
            try await Application(router: router).test(.router) { client in
                let admin = try await client.execute(uri: "/admin", method: .get, headers: [.authorization: "Bearer \(pool.ann.accessToken)"])
                #expect(admin.status == .ok)
                let other = try await client.execute(uri: "/admin", method: .get, headers: [.authorization: "Bearer \(pool.ben.accessToken)"])
                #expect(other.status == .forbidden)
            }
            try await pool.close()
        }

        @Test("with a tracer bootstrapped, Amplify.Auth calls in a route are child spans of Hummingbird's request span")
        func authCallsAreChildSpans() async throws {
            let tracer = TestTracer.shared
            let pool = try await ScenarioPool()
            let router = Router(context: Context.self)
            router.add(middleware: TracingMiddleware())
            router.group().add(middleware: Self.middleware(pool)).get("/me") { _, context in
                Self.json(try await ScenarioRoutes.me(try context.requireUser()))
            }
            let marker = "trace-\(UUID().uuidString)"
            try await Application(router: router).test(.router) { client in
                let response = try await client.execute(
                    uri: "/me?\(marker)", method: .get, headers: [.authorization: "Bearer \(pool.ann.accessToken)"])
                #expect(response.status == .ok)
            }
            let request = try #require(tracer.finishedSpans.first { $0.kind == .server && "\($0.attributes)".contains(marker) })
            let auth = try #require(TestTracer.spans(inTrace: request.traceID).first { $0.operationName == "Auth.getCurrentUser" })
            #expect(auth.parentSpanID == request.spanID)
            try await pool.close()
        }
    }
#endif
