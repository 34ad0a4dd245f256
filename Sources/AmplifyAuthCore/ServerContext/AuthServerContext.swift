import Amplify

/// A scope in which Auth calls act as one user of one pool: a server's per-request (or
/// per-held-session) counterpart of Amplify JS's `runWithAmplifyServerContext`.
///
/// Inside ``run(isolation:_:)`` — a task-local value, so code that calls `Amplify.Auth` runs unchanged —
/// `fetchAuthSession`, `getCurrentUser`, `fetchUserAttributes`, `update(userAttribute:)`,
/// `signOut` and the rest act on the context's session instead of the process-wide one, and go to
/// the context's plugin; `.fromIdentityID` storage paths and identity-pool credentials are the
/// context user's. Child tasks inherit the context; detached tasks do not. Outside any context
/// everything behaves exactly as before.
///
/// Make one from a request with the plugin's `serverContext(authorization:…)` or
/// `serverContext(cookieHeaders:)`, from the store with ``AuthSessionStore/context(for:)``, or
/// empty (for a sign-in) with `emptyServerContext()`. After the handler, ``responseCookies(_:)``
/// gives the `Set-Cookie` values that carry refreshed tokens back to an Amplify JS front end.
public final class AuthServerContext: AuthServerContextBinding {
    /// The context the current task runs in, if any (the task-local `AuthCategory.serverContext`).
    public static var current: AuthServerContext? { AuthCategory.serverContext as? AuthServerContext }

    /// The pool the context is bound to.
    public let tenant: AuthTenant
    /// The context's session.
    public let session: AuthContextSession
    /// The plugin of the context's pool, where `Amplify.Auth` calls in the context go.
    public let plugin: any AuthCategoryPlugin

    /// A context acting as `session`'s user on `plugin`.
    public init(plugin: any AuthCategoryPlugin, session: AuthContextSession) {
        self.plugin = plugin
        self.session = session
        tenant = session.tenant
    }

    /// The user the context acts as (`nil` before a sign-in in it).
    public var user: SignedInUser? { session.user }

    /// Runs `body` in the context: every Auth call in it (and in its child tasks) acts as the
    /// context's user on the context's plugin. `body` runs on the caller's isolation.
    /// - Throws: what `body` throws.
    public func run<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async rethrows -> T {
        try await AuthCategory.$serverContext.withValue(self) {
            try await body()
        }
    }

    /// The `Set-Cookie` values the response must carry, in the format Amplify JS reads: the new
    /// tokens after a refresh or a sign-in in the context, deletions after a sign-out or expiry,
    /// nothing when the tokens did not change.
    public func responseCookies(_ attributes: AmplifyJSCookies.Attributes = .init()) async -> [String] {
        guard session.needsCookies, let user = session.user else { return [] }
        if let current = await session.current {
            return AmplifyJSCookies.setCookies(clientId: tenant.clientId, session: current, attributes: attributes)
        }
        return AmplifyJSCookies.clearingCookies(clientId: tenant.clientId, username: user.username, attributes: attributes)
    }

    /// The context of the current task if it is bound to `tenant` (`nil` outside any context):
    /// both engines ask it at the start of each call, and act on its session, else on their
    /// process-wide one.
    /// - Throws: `AuthError.invalidState(_:_:_:)` when it is bound to another pool (the call is
    ///   refused rather than acting as the process-wide user or another tenant's).
    public static func current(for tenant: AuthTenant) throws -> AuthServerContext? {
        guard let context = current else { return nil }
        guard context.tenant == tenant else {
            throw AuthError.invalidState(
                "This call runs in a server context bound to the pool \(context.tenant.id), and went to the plugin of \(tenant.id).",
                "Call the context's own plugin, or make a context for that pool.")
        }
        return context
    }
}
