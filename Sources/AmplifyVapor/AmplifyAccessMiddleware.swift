#if AmplifyVapor
    import AmplifyAuthCore
    import Vapor

    /// Vapor middleware that lets through only users an `AccessPolicy` allows (groups, scopes): 401
    /// without a user, 403 `insufficient_scope` for a user without the group or scope. Put it after
    /// ``AmplifyAuthMiddleware`` (on a route group).
    ///
    ///     app.grouped(AmplifyAccessMiddleware(.group("admins"))).get("admin") { … }
    public struct AmplifyAccessMiddleware: AsyncMiddleware {
        /// Who may pass.
        public let policy: AccessPolicy

        /// Middleware applying `policy`.
        public init(_ policy: AccessPolicy) {
            self.policy = policy
        }

        /// Passes the request on if `policy` allows its user.
        /// - Throws: ``AmplifyAbort`` when it does not.
        public func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
            _ = try request.amplify.requireUser(policy)
            return try await next.respond(to: request)
        }
    }

    /// The user as Vapor's authentication sees it: `req.auth.require(AuthenticatedUser.self)`.
    extension AuthenticatedUser: Authenticatable {}

    extension Request {
        /// The request's Amplify authentication: its user and server context.
        public var amplify: AmplifyRequest { AmplifyRequest(request: self) }
    }

    /// A request's Amplify authentication, as ``AmplifyAuthMiddleware`` left it.
    public struct AmplifyRequest: Sendable {
        let request: Request

        /// The verified user, or `nil` (no credentials, or no ``AmplifyAuthMiddleware`` on the route).
        public var user: AuthenticatedUser? { request.auth.get(AuthenticatedUser.self) }

        /// The server context the request runs in (`nil` without ``AmplifyAuthMiddleware``).
        public var context: AuthServerContext? { request.storage[AuthenticatedRequestKey.self]?.context }

        /// The user if `policy` allows them (default: any signed-in user).
        /// - Throws: ``AmplifyAbort`` — 401 without a user, 403 when the policy refuses.
        public func requireUser(_ policy: AccessPolicy = .signedIn) throws -> AuthenticatedUser {
            if let refusal = policy.check(user) { throw AmplifyAbort(refusal) }
            guard let user else { throw AmplifyAbort(.missingCredentials()) }
            return user
        }
    }
#endif
