/// `Amplify.Auth`: sign-up, sign-in, sessions and user attributes, through the one Auth plugin
/// added or named in the configuration file.
///
/// Every call throws ``AuthError/configuration(_:_:_:)`` if Amplify is not configured, if no
/// Auth plugin was added, or if more than one was (use ``getPlugin(for:)`` then).
public final class AuthCategory: AuthCategoryBehavior {
    let plugins = CategoryPlugins<any AuthCategoryPlugin>(category: .auth) { AuthError.configuration($0, $1) }

    init() {}

    /// `.auth`.
    public let categoryType: CategoryType = .auth

    /// The plugin with `key`.
    /// - Throws: ``AuthError/configuration(_:_:_:)`` listing the keys there are (amplify-swift's error).
    public func getPlugin(for key: PluginKey) throws -> any AuthCategoryPlugin {
        try plugins.require(key)
    }

    /// Every Auth plugin added, ordered by key (for plugins of other categories that look for a
    /// capability, such as AWS credentials, in whichever Auth plugin has it).
    public var addedPlugins: [any AuthCategoryPlugin] {
        plugins.all.sorted { $0.key < $1.key }.map(\.value)
    }

    /// Removes the plugin with `key` (before `configure`).
    public func removePlugin(for key: PluginKey) { plugins.remove(key: key) }

    /// Resets every Auth plugin, removes them and marks the category unconfigured (what
    /// `Amplify.reset()` does for Auth).
    public func reset() async {
        for plugin in plugins.takeAll() { await plugin.reset() }
    }

    /// The one plugin calls go to. - Throws: ``AuthError/configuration(_:_:_:)``.
    func getSelected() throws -> any AuthCategoryPlugin { try selected() }

    /// The server context the current task runs in (set by the context's `run`; `nil` outside
    /// one): calls go to its plugin, the context's own pool, so a request of one tenant can never
    /// reach another's plugin. One task-local value, so entering a context pushes one.
    @TaskLocal public static var serverContext: (any AuthServerContextBinding)?

    /// `body` in a span named `name` when a tracer is bootstrapped (see `AmplifyTracing`).
    private func traced<T>(_ name: String, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async throws -> T {
        try await AmplifyTracing.withSpan(name) { _ in try await body() }
    }

    private func selected() throws -> any AuthCategoryPlugin {
        if let bound = Self.serverContext { return bound.plugin }
        let selection = plugins.selectOne()
        if case .plugin(let plugin) = selection { return plugin }
        let (description, suggestion) = plugins.explain(selection)
        throw AuthError.configuration(description, suggestion)
    }

    /// Creates a user. - Throws: ``AuthError``.
    public func signUp(username: String, password: String? = nil, options: AuthSignUpRequest.Options? = nil) async throws -> AuthSignUpResult {
        try await traced("Auth.signUp") { try await selected().signUp(username: username, password: password, options: options) }
    }

    /// Confirms a new user with the code that was sent. - Throws: ``AuthError``.
    public func confirmSignUp(for username: String, confirmationCode: String, options: AuthConfirmSignUpRequest.Options? = nil) async throws
        -> AuthSignUpResult
    {
        try await traced("Auth.confirmSignUp") {
            try await selected().confirmSignUp(for: username, confirmationCode: confirmationCode, options: options)
        }
    }

    /// Sends a new sign-up code. - Throws: ``AuthError``.
    public func resendSignUpCode(for username: String, options: AuthResendSignUpCodeRequest.Options? = nil) async throws -> AuthCodeDeliveryDetails {
        try await traced("Auth.resendSignUpCode") { try await selected().resendSignUpCode(for: username, options: options) }
    }

    /// Signs a user in. - Throws: ``AuthError``.
    public func signIn(username: String? = nil, password: String? = nil, options: AuthSignInRequest.Options? = nil) async throws -> AuthSignInResult {
        try await traced("Auth.signIn") { try await selected().signIn(username: username, password: password, options: options) }
    }

    /// Answers a sign-in challenge. - Throws: ``AuthError``.
    public func confirmSignIn(challengeResponse: String, options: AuthConfirmSignInRequest.Options? = nil) async throws -> AuthSignInResult {
        try await traced("Auth.confirmSignIn") { try await selected().confirmSignIn(challengeResponse: challengeResponse, options: options) }
    }

    /// Signs out. Never throws: without a usable plugin the result says nothing was signed out.
    public func signOut(options: AuthSignOutRequest.Options? = nil) async -> any AuthSignOutResult {
        do {
            return try await traced("Auth.signOut") { try await selected().signOut(options: options) }
        } catch {
            return UnavailableSignOutResult(error: error)
        }
    }

    /// Deletes the signed-in user. - Throws: ``AuthError``.
    public func deleteUser() async throws {
        try await traced("Auth.deleteUser") { try await selected().deleteUser() }
    }

    /// The current session. - Throws: ``AuthError``.
    public func fetchAuthSession(options: AuthFetchSessionRequest.Options? = nil) async throws -> any AuthSession {
        try await traced("Auth.fetchAuthSession") { try await selected().fetchAuthSession(options: options) }
    }

    /// Starts a password reset. - Throws: ``AuthError``.
    public func resetPassword(for username: String, options: AuthResetPasswordRequest.Options? = nil) async throws -> AuthResetPasswordResult {
        try await traced("Auth.resetPassword") { try await selected().resetPassword(for: username, options: options) }
    }

    /// Finishes a password reset. - Throws: ``AuthError``.
    public func confirmResetPassword(
        for username: String, with newPassword: String, confirmationCode: String, options: AuthConfirmResetPasswordRequest.Options? = nil
    ) async throws {
        try await traced("Auth.confirmResetPassword") {
            try await selected().confirmResetPassword(for: username, with: newPassword, confirmationCode: confirmationCode, options: options)
        }
    }

    /// The signed-in user. - Throws: ``AuthError``.
    public func getCurrentUser() async throws -> any AuthUser {
        try await traced("Auth.getCurrentUser") { try await selected().getCurrentUser() }
    }

    /// The signed-in user's attributes. - Throws: ``AuthError``.
    public func fetchUserAttributes(options: AuthFetchUserAttributesRequest.Options? = nil) async throws -> [AuthUserAttribute] {
        try await traced("Auth.fetchUserAttributes") { try await selected().fetchUserAttributes(options: options) }
    }

    /// Updates one attribute. - Throws: ``AuthError``.
    public func update(userAttribute: AuthUserAttribute, options: AuthUpdateUserAttributeRequest.Options? = nil) async throws
        -> AuthUpdateAttributeResult
    {
        try await traced("Auth.update") { try await selected().update(userAttribute: userAttribute, options: options) }
    }

    /// Updates several attributes. - Throws: ``AuthError``.
    public func update(userAttributes: [AuthUserAttribute], options: AuthUpdateUserAttributesRequest.Options? = nil) async throws
        -> [AuthUserAttributeKey: AuthUpdateAttributeResult]
    {
        try await traced("Auth.update") { try await selected().update(userAttributes: userAttributes, options: options) }
    }

    /// Changes the signed-in user's password. - Throws: ``AuthError``.
    public func update(oldPassword: String, to newPassword: String, options: AuthChangePasswordRequest.Options? = nil) async throws {
        try await traced("Auth.update") { try await selected().update(oldPassword: oldPassword, to: newPassword, options: options) }
    }
}

/// What `Amplify.Auth.signOut()` returns when there is no plugin to sign out of.
public struct UnavailableSignOutResult: AuthSignOutResult {
    /// Why nothing was signed out.
    public let error: any Error
    /// Always `false`.
    public var signedOutLocally: Bool { false }
}

/// What `Amplify.Auth` needs of a server context (`AuthServerContext` in `AmplifyAuthCore`): the
/// plugin its calls go to.
public protocol AuthServerContextBinding: Sendable {
    /// The plugin of the context's pool.
    var plugin: any AuthCategoryPlugin { get }
}
