#if AmplifyVapor
    import Amplify
    import AmplifyAuthCore
    import Vapor

    /// Vapor middleware that authenticates each request against an Amplify user pool (Cognito or the
    /// embedded local pool) and runs the rest of the chain as its user.
    ///
    /// - The request's `Authorization: Bearer` token, else Amplify JS's cookies (every `Cookie`
    ///   header), are verified (`AmplifyAuthenticator`; repeated tokens hit its cache).
    /// - The route runs inside the user's `AuthServerContext`: unchanged `Amplify.Auth`,
    ///   `Amplify.Storage` and `Amplify.API` code acts as the user. The `AuthenticatedUser` is
    ///   logged in (`req.auth.require(AuthenticatedUser.self)`, or `req.amplify.requireUser()` for
    ///   RFC 6750's answers); a request without credentials runs in an empty context with nobody
    ///   logged in (public routes, sign-in).
    /// - Tokens refreshed or created during the request go back as `Set-Cookie`, also when the route
    ///   throws (the error rendered as Vapor's `ErrorMiddleware` renders it).
    /// - A refused request never reaches the route: ``AmplifyAbort`` answers it (400, 401 with
    ///   `WWW-Authenticate: Bearer error="invalid_token"`, 503 with `Retry-After`).
    ///
    ///     app.middleware.use(AmplifyAuthMiddleware(plugin: authPlugin))
    ///     app.get("me") { req in try req.amplify.requireUser().username }
    public struct AmplifyAuthMiddleware: AsyncMiddleware {
        /// Verifies the requests (its cache, cookie attributes and tenants are shared by all requests).
        public let authenticator: AmplifyAuthenticator

        /// Middleware around `authenticator`.
        public init(_ authenticator: AmplifyAuthenticator) {
            self.authenticator = authenticator
        }

        /// Middleware for one pool's plugin, with a verified-token cache and `cookieAttributes` for
        /// the cookies it writes back.
        public init(plugin: any AuthServerContextPlugin, cookieAttributes: AmplifyJSCookies.Attributes = .init()) {
            self.init(AmplifyAuthenticator(plugin: plugin, cookieAttributes: cookieAttributes))
        }

        /// Authenticates `request`, then runs `next` in the user's context and adds the context's
        /// cookies to the response.
        /// - Throws: ``AmplifyAbort`` for a refused request; what `next` throws when no cookie must be
        ///   written (otherwise the error's response carries them).
        public func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
            let authenticated: AuthenticatedRequest
            do {
                authenticated = try await authenticator.authenticate(request.amplifyCredentials)
            } catch {
                throw AmplifyAbort(error)
            }
            if let user = authenticated.user { request.auth.login(user) }
            request.storage[AuthenticatedRequestKey.self] = authenticated
            let response: Response
            do {
                response = try await authenticated.context.run { try await next.respond(to: request) }
            } catch {
                let cookies = await authenticated.responseCookies()
                guard !cookies.isEmpty else { throw error }
                let rendered = try await ErrorMiddleware.default(environment: request.application.environment)
                    .respond(to: request, chainingTo: FailingResponder(error: error)).get()
                for cookie in cookies { rendered.headers.add(name: .setCookie, value: cookie) }
                return rendered
            }
            for cookie in await authenticated.responseCookies() { response.headers.add(name: .setCookie, value: cookie) }
            return response
        }
    }

    /// A responder that throws `error`, for rendering it through `ErrorMiddleware`.
    private struct FailingResponder: Responder {
        let error: any Error
        func respond(to request: Request) -> EventLoopFuture<Response> { request.eventLoop.makeFailedFuture(error) }
    }

    enum AuthenticatedRequestKey: StorageKey {
        typealias Value = AuthenticatedRequest
    }

    extension Request {
        /// What the request brings for authentication: its `Authorization` and `Cookie` headers, host and path.
        public var amplifyCredentials: RequestCredentials {
            RequestCredentials(
                authorization: headers[.authorization], cookies: headers[.cookie], host: headers.first(name: .host), path: url.path)
        }
    }
#endif
