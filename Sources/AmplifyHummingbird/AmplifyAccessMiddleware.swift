#if AmplifyHummingbird
    import AmplifyAuthCore
    import Hummingbird
    import HummingbirdAuth

    /// Hummingbird middleware that lets through only users an `AccessPolicy` allows (groups,
    /// scopes): 401 without a user, 403 `insufficient_scope` for a user without the group or scope.
    /// Put it after ``AmplifyAuthMiddleware`` (on a route group).
    ///
    ///     router.group("admin").add(middleware: AmplifyAccessMiddleware(.group("admins")))
    public struct AmplifyAccessMiddleware<Context: AuthRequestContext>: RouterMiddleware where Context.Identity == AuthenticatedUser {
        /// Who may pass.
        public let policy: AccessPolicy

        /// Middleware applying `policy`.
        public init(_ policy: AccessPolicy) {
            self.policy = policy
        }

        /// Passes the request on if `policy` allows `context.identity`.
        /// - Throws: ``AmplifyAuthError`` when it does not.
        public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            if let refusal = policy.check(context.identity) { throw AmplifyAuthError(refusal) }
            return try await next(request, context)
        }
    }

    extension AuthRequestContext where Identity == AuthenticatedUser {
        /// The request's user if `policy` allows them (default: any signed-in user): a route's own check.
        /// - Throws: ``AmplifyAuthError`` — 401 without a user, 403 when the policy refuses.
        public func requireUser(_ policy: AccessPolicy = .signedIn) throws -> AuthenticatedUser {
            if let refusal = policy.check(identity) { throw AmplifyAuthError(refusal) }
            guard let identity else { throw AmplifyAuthError(.missingCredentials()) }
            return identity
        }
    }

    /// Groups as hummingbird-auth's roles, so its `RolePolicy` and `AuthorizationPolicyMiddleware` work too.
    extension AuthenticatedUser: RoleProviding {
        /// The user's groups.
        public var roles: Set<String> { Set(groups) }
    }
#endif
