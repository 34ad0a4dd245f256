#if AmplifyHummingbird
    import Amplify
    import AmplifyAuthCore
    import HTTPTypes
    import Hummingbird
    import HummingbirdAuth

    /// Hummingbird middleware that authenticates each request against an Amplify user pool (Cognito
    /// or the embedded local pool) and runs the rest of the chain as its user.
    ///
    /// - The request's `Authorization: Bearer` token, else Amplify JS's cookies (every `Cookie`
    ///   header), are verified (`AmplifyAuthenticator`; repeated tokens hit its cache).
    /// - The route runs inside the user's `AuthServerContext`: unchanged `Amplify.Auth`,
    ///   `Amplify.Storage` and `Amplify.API` code acts as the user. `context.identity` is the
    ///   `AuthenticatedUser` (`nil` for a request without credentials, which runs in an empty
    ///   context — public routes, sign-in).
    /// - Tokens refreshed or created during the request go back as `Set-Cookie`, also when the route
    ///   throws.
    /// - A refused request never reaches the route: ``AmplifyAuthError`` answers it (RFC 6750: 400,
    ///   401 with `WWW-Authenticate: Bearer error="invalid_token"`, 503 with `Retry-After`).
    ///
    ///     typealias AppContext = BasicAuthRequestContext<AuthenticatedUser>
    ///     let router = Router(context: AppContext.self)
    ///     router.add(middleware: AmplifyAuthMiddleware(plugin: authPlugin))
    ///     router.get("/me") { _, context in try context.requireUser().username }
    public struct AmplifyAuthMiddleware<Context: AuthRequestContext>: RouterMiddleware where Context.Identity == AuthenticatedUser {
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
        /// - Throws: ``AmplifyAuthError`` for a refused request; what `next` throws when no cookie
        ///   must be written (otherwise the error's response carries them).
        public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            let authenticated: AuthenticatedRequest
            do {
                authenticated = try await authenticator.authenticate(request.amplifyCredentials)
            } catch {
                throw AmplifyAuthError(error)
            }
            var context = context
            context.identity = authenticated.user
            var response: Response
            do {
                response = try await authenticated.context.run { try await next(request, context) }
            } catch {
                let cookies = await authenticated.responseCookies()
                guard !cookies.isEmpty else { throw error }
                if let httpError = error as? any HTTPResponseError {
                    response = try httpError.response(from: request, context: context)
                } else {
                    context.logger.error("The route failed: \(String(reflecting: error))")
                    response = Response(status: .internalServerError)
                }
                response.headers.appendCookies(cookies)
                return response
            }
            response.headers.appendCookies(await authenticated.responseCookies())
            return response
        }
    }

    extension Request {
        /// What the request brings for authentication: its `Authorization` and `Cookie` headers, host and path.
        public var amplifyCredentials: RequestCredentials {
            RequestCredentials(
                authorization: headers[values: .authorization], cookies: headers[values: .cookie], host: head.authority,
                path: uri.path)
        }
    }

    extension HTTPFields {
        mutating func appendCookies(_ cookies: [String]) {
            for cookie in cookies { append(HTTPField(name: .setCookie, value: cookie)) }
        }
    }
#endif
