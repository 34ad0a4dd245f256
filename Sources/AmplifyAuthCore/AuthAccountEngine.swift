import Amplify

/// The account calls an Auth plugin makes the same way whatever its backend: an actor that does
/// them, behind a plugin whose category methods (the ``AuthEngineBackedPlugin`` extension) run
/// each one and report it on the Hub. Both Auth plugins of this package are built so; a plugin of
/// your own can be too.
public protocol AuthAccountEngine: Actor {
    /// The session `fetchAuthSession` returns.
    associatedtype Session: AuthSession
    /// The user `getCurrentUser` returns.
    associatedtype User: AuthUser

    /// Creates a user. - Throws: `AuthError`.
    func signUp(username: String, password: String?, attributes: [AuthUserAttribute]) async throws -> AuthSignUpResult
    /// Confirms a new user with the code. - Throws: `AuthError`.
    func confirmSignUp(username: String, code: String) async throws -> AuthSignUpResult
    /// Sends a new sign-up code. - Throws: `AuthError`.
    func resendSignUpCode(username: String) async throws -> AuthCodeDeliveryDetails
    /// Deletes the signed-in user and ends the session; returns the username.
    /// - Throws: `AuthError.signedOut(_:_:_:)` when nobody is signed in.
    func deleteUser() async throws -> String
    /// The session, refreshed when expired (or always, with `forceRefresh`). - Throws: `AuthError`.
    func fetchAuthSession(forceRefresh: Bool) async throws -> Session
    /// Starts a password reset. - Throws: `AuthError`.
    func resetPassword(username: String) async throws -> AuthResetPasswordResult
    /// Sets a new password with the reset code. - Throws: `AuthError`.
    func confirmResetPassword(username: String, newPassword: String, code: String) async throws
    /// The signed-in user. - Throws: `AuthError.signedOut(_:_:_:)` or `AuthError.sessionExpired(_:_:_:)`.
    func currentUser() async throws -> User
    /// The signed-in user's attributes. - Throws: `AuthError`.
    func attributes() async throws -> [AuthUserAttribute]
    /// Changes the signed-in user's password. - Throws: `AuthError`.
    func changePassword(from old: String, to new: String) async throws
}

/// An Auth plugin whose account calls are its engine's: the extension below is their one copy,
/// each running the engine's call and dispatching its `Auth.*API` event (and `Auth.userDeleted`).
public protocol AuthEngineBackedPlugin: AuthCategoryPlugin {
    /// The plugin's engine.
    associatedtype Engine: AuthAccountEngine
    /// The configured engine.
    /// - Throws: `AuthError.configuration(_:_:_:)` before `configure`.
    func accountEngine() throws -> Engine
    /// Where the plugin reports on the Hub.
    var authEvents: AuthEventReporter { get }
}

/// The default: each account call runs on the engine and is reported on the Hub's `.auth` channel.
extension AuthEngineBackedPlugin {
    /// Creates a user with `options.userAttributes`. - Throws: `AuthError`.
    public func signUp(username: String, password: String?, options: AuthSignUpRequest.Options?) async throws -> AuthSignUpResult {
        try await authEvents.report(HubPayload.EventName.Auth.signUpAPI, username: username) {
            try await accountEngine().signUp(username: username, password: password, attributes: options?.userAttributes ?? [])
        }
    }

    /// Confirms a new user with the code. - Throws: `AuthError`.
    public func confirmSignUp(for username: String, confirmationCode: String, options: AuthConfirmSignUpRequest.Options?) async throws
        -> AuthSignUpResult
    {
        try await authEvents.report(HubPayload.EventName.Auth.confirmSignUpAPI, username: username) {
            try await accountEngine().confirmSignUp(username: username, code: confirmationCode)
        }
    }

    /// Sends a new sign-up code. - Throws: `AuthError`.
    public func resendSignUpCode(for username: String, options: AuthResendSignUpCodeRequest.Options?) async throws -> AuthCodeDeliveryDetails {
        try await authEvents.report(HubPayload.EventName.Auth.resendSignUpCodeAPI, username: username) {
            try await accountEngine().resendSignUpCode(username: username)
        }
    }

    /// Deletes the signed-in user, then dispatches `Auth.userDeleted`.
    /// - Throws: `AuthError.signedOut(_:_:_:)` when nobody is signed in.
    public func deleteUser() async throws {
        let username = try await authEvents.report(HubPayload.EventName.Auth.deleteUserAPI) { try await accountEngine().deleteUser() }
        authEvents.lifecycle(HubPayload.EventName.Auth.userDeleted, username)
    }

    /// The session; refreshes expired tokens (or all, with `forceRefresh`). A session that cannot
    /// be refreshed ends with `Auth.sessionExpired` and comes back signed out.
    /// - Throws: `AuthError`.
    public func fetchAuthSession(options: AuthFetchSessionRequest.Options?) async throws -> any AuthSession {
        try await authEvents.report(HubPayload.EventName.Auth.fetchSessionAPI) {
            try await accountEngine().fetchAuthSession(forceRefresh: options?.forceRefresh ?? false)
        }
    }

    /// Starts a password reset: a code goes to the user. - Throws: `AuthError`.
    public func resetPassword(for username: String, options: AuthResetPasswordRequest.Options?) async throws -> AuthResetPasswordResult {
        try await authEvents.report(HubPayload.EventName.Auth.resetPasswordAPI, username: username) {
            try await accountEngine().resetPassword(username: username)
        }
    }

    /// Sets a new password with the reset code. - Throws: `AuthError`.
    public func confirmResetPassword(
        for username: String, with newPassword: String, confirmationCode: String, options: AuthConfirmResetPasswordRequest.Options?
    ) async throws {
        try await authEvents.report(HubPayload.EventName.Auth.confirmResetPasswordAPI, username: username) {
            try await accountEngine().confirmResetPassword(username: username, newPassword: newPassword, code: confirmationCode)
        }
    }

    /// The signed-in user, from the stored session (no network call).
    /// - Throws: `AuthError.signedOut(_:_:_:)` or `AuthError.sessionExpired(_:_:_:)`.
    public func getCurrentUser() async throws -> any AuthUser {
        try await accountEngine().currentUser()
    }

    /// The signed-in user's attributes. - Throws: `AuthError`.
    public func fetchUserAttributes(options: AuthFetchUserAttributesRequest.Options?) async throws -> [AuthUserAttribute] {
        try await authEvents.report(HubPayload.EventName.Auth.fetchUserAttributesAPI) { try await accountEngine().attributes() }
    }

    /// Changes the signed-in user's password. - Throws: `AuthError.notAuthorized(_:_:_:)`
    /// for a wrong old password.
    public func update(oldPassword: String, to newPassword: String, options: AuthChangePasswordRequest.Options?) async throws {
        try await authEvents.report(HubPayload.EventName.Auth.changePasswordAPI) {
            try await accountEngine().changePassword(from: oldPassword, to: newPassword)
        }
    }
}
