/// Options of the Auth calls that take nothing but data for the plugin.
public struct AuthPluginOptions: Sendable {
    /// Data for the plugin (client metadata, flow type, ...).
    public let pluginOptions: (any Sendable)?
    /// Options carrying `pluginOptions`.
    public init(pluginOptions: (any Sendable)? = nil) { self.pluginOptions = pluginOptions }
}

/// Options of the Auth calls that take user attributes as well as data for the plugin.
public struct AuthUserAttributesOptions: Sendable {
    /// Attributes to store with the user (or that a new-password challenge asks for).
    public let userAttributes: [AuthUserAttribute]?
    /// Data for the plugin (client metadata, validation data, ...).
    public let pluginOptions: (any Sendable)?
    /// Options with `userAttributes`.
    public init(userAttributes: [AuthUserAttribute]? = nil, pluginOptions: (any Sendable)? = nil) {
        self.userAttributes = userAttributes
        self.pluginOptions = pluginOptions
    }
}

/// Options for `signUp`.
public enum AuthSignUpRequest {
    /// `AuthSignUpRequest.Options(userAttributes: [AuthUserAttribute(.email, value: email)])`.
    public typealias Options = AuthUserAttributesOptions
}

/// Options for `confirmSignUp`.
public enum AuthConfirmSignUpRequest {
    /// Plugin options only.
    public typealias Options = AuthPluginOptions
}

/// Options for `resendSignUpCode`.
public enum AuthResendSignUpCodeRequest {
    /// Plugin options only.
    public typealias Options = AuthPluginOptions
}

/// Options for `signIn`.
public enum AuthSignInRequest {
    /// Plugin options only (the flow type, client metadata, ...).
    public typealias Options = AuthPluginOptions
}

/// Options for `confirmSignIn`.
public enum AuthConfirmSignInRequest {
    /// Attributes a new-password challenge asks for, and plugin options.
    public typealias Options = AuthUserAttributesOptions
}

/// Options for `signOut`.
public enum AuthSignOutRequest {
    /// `AuthSignOutRequest.Options(globalSignOut: true)` also revokes every session of the user.
    public struct Options: Sendable {
        /// Sign out of every device (revoke every refresh token of the user).
        public let globalSignOut: Bool
        /// Data for the plugin.
        public let pluginOptions: (any Sendable)?
        /// Options.
        public init(globalSignOut: Bool = false, pluginOptions: (any Sendable)? = nil) {
            self.globalSignOut = globalSignOut
            self.pluginOptions = pluginOptions
        }
    }
}

/// Options for `fetchAuthSession`.
public enum AuthFetchSessionRequest {
    /// `AuthFetchSessionRequest.Options.forceRefresh()` refreshes tokens even if still valid.
    public struct Options: Sendable {
        /// Refresh even if the tokens are still valid.
        public let forceRefresh: Bool
        /// Data for the plugin.
        public let pluginOptions: (any Sendable)?
        /// Options.
        public init(forceRefresh: Bool = false, pluginOptions: (any Sendable)? = nil) {
            self.forceRefresh = forceRefresh
            self.pluginOptions = pluginOptions
        }
        /// Options that force a refresh.
        public static func forceRefresh() -> Options { Options(forceRefresh: true) }
    }
}

/// Options for `fetchUserAttributes`.
public enum AuthFetchUserAttributesRequest {
    /// Plugin options only.
    public typealias Options = AuthPluginOptions
}

/// Options for `update(userAttribute:)`.
public enum AuthUpdateUserAttributeRequest {
    /// Plugin options only.
    public typealias Options = AuthPluginOptions
}

/// Options for `update(userAttributes:)`.
public enum AuthUpdateUserAttributesRequest {
    /// Plugin options only.
    public typealias Options = AuthPluginOptions
}

/// Options for `update(oldPassword:to:)`.
public enum AuthChangePasswordRequest {
    /// Plugin options only.
    public typealias Options = AuthPluginOptions
}

/// Options for `resetPassword`.
public enum AuthResetPasswordRequest {
    /// Plugin options only.
    public typealias Options = AuthPluginOptions
}

/// Options for `confirmResetPassword`.
public enum AuthConfirmResetPasswordRequest {
    /// Plugin options only.
    public typealias Options = AuthPluginOptions
}
