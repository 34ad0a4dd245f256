/// What the Auth category does. Every call is `async`; the ones that can fail throw
/// ``AuthError``. Plugins also dispatch each call's result on the Hub's `.auth` channel
/// (`HubPayload.EventName.Auth.*API`) and the lifecycle events (`signedIn`, `signedOut`,
/// `sessionExpired`, `userDeleted`).
public protocol AuthCategoryBehavior: Sendable {
    /// Creates a user. - Throws: ``AuthError``.
    func signUp(username: String, password: String?, options: AuthSignUpRequest.Options?) async throws -> AuthSignUpResult
    /// Confirms a new user with the code that was sent. - Throws: ``AuthError``.
    func confirmSignUp(for username: String, confirmationCode: String, options: AuthConfirmSignUpRequest.Options?) async throws -> AuthSignUpResult
    /// Sends a new sign-up code. - Throws: ``AuthError``.
    func resendSignUpCode(for username: String, options: AuthResendSignUpCodeRequest.Options?) async throws -> AuthCodeDeliveryDetails
    /// Signs a user in. - Throws: ``AuthError``.
    func signIn(username: String?, password: String?, options: AuthSignInRequest.Options?) async throws -> AuthSignInResult
    /// Answers a sign-in challenge. - Throws: ``AuthError``.
    func confirmSignIn(challengeResponse: String, options: AuthConfirmSignInRequest.Options?) async throws -> AuthSignInResult
    /// Signs out; never throws: the result says how far it got.
    func signOut(options: AuthSignOutRequest.Options?) async -> any AuthSignOutResult
    /// Deletes the signed-in user. - Throws: ``AuthError``.
    func deleteUser() async throws
    /// The current session. - Throws: ``AuthError``.
    func fetchAuthSession(options: AuthFetchSessionRequest.Options?) async throws -> any AuthSession
    /// Starts a password reset. - Throws: ``AuthError``.
    func resetPassword(for username: String, options: AuthResetPasswordRequest.Options?) async throws -> AuthResetPasswordResult
    /// Finishes a password reset with the code that was sent. - Throws: ``AuthError``.
    func confirmResetPassword(
        for username: String, with newPassword: String, confirmationCode: String, options: AuthConfirmResetPasswordRequest.Options?) async throws
    /// The signed-in user. - Throws: ``AuthError/signedOut(_:_:_:)`` when there is none.
    func getCurrentUser() async throws -> any AuthUser
    /// The signed-in user's attributes. - Throws: ``AuthError``.
    func fetchUserAttributes(options: AuthFetchUserAttributesRequest.Options?) async throws -> [AuthUserAttribute]
    /// Updates one attribute. - Throws: ``AuthError``.
    func update(userAttribute: AuthUserAttribute, options: AuthUpdateUserAttributeRequest.Options?) async throws -> AuthUpdateAttributeResult
    /// Updates several attributes. - Throws: ``AuthError``.
    func update(userAttributes: [AuthUserAttribute], options: AuthUpdateUserAttributesRequest.Options?) async throws -> [AuthUserAttributeKey:
        AuthUpdateAttributeResult]
    /// Changes the signed-in user's password. - Throws: ``AuthError``.
    func update(oldPassword: String, to newPassword: String, options: AuthChangePasswordRequest.Options?) async throws
}
