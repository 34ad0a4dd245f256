import Amplify
import AmplifyAuthCore
import AmplifyConcurrency
import Foundation

/// The sign-ups that may end in `autoSignIn()`: those made through the plugin (until their
/// ticket lapses), and the one confirmed last, which `autoSignIn()` takes.
final class AutoSignInTickets: Sendable {
    private struct State {
        var signedUp: [String: Date] = [:]
        var confirmed: (username: String, expiry: Date)?
    }

    private let state = Locked(State())

    /// Keeps a ticket for `username` for `lifetime` seconds.
    func issue(_ username: String, lifetime: TimeInterval) {
        state.withLock { $0.signedUp[LocalUserPool.canonical(username)] = Date().addingTimeInterval(lifetime) }
    }

    /// Moves `username`'s ticket, if it has a live one, to the confirmed slot; `true` if it did.
    func confirm(_ username: String) -> Bool {
        state.withLock { state in
            let key = LocalUserPool.canonical(username)
            guard let expiry = state.signedUp.removeValue(forKey: key), expiry > Date() else { return false }
            state.confirmed = (key, expiry)
            return true
        }
    }

    /// The confirmed sign-up waiting, taken (`nil` if none, or it lapsed).
    func takeConfirmed() -> String? {
        state.withLock { state in
            defer { state.confirmed = nil }
            guard let confirmed = state.confirmed, confirmed.expiry > Date() else { return nil }
            return confirmed.username
        }
    }
}

/// amplify-swift's attribute verification, TOTP set-up, MFA preferences and auto sign-in, on the
/// local pool. Codes go through the plugin's delivery (the outbox by default); TOTP is RFC 6238
/// (SHA-1, 6 digits, 30 s, one step of drift), each code accepted once. `autoSignIn()` follows a
/// `signUp` made through this plugin and confirmed within the pool's code lifetime: its
/// `confirmSignUp` then returns `.completeAutoSignIn`.
extension LocalAuthPlugin: AuthCategoryExtendedBehavior {
    /// Creates a user (see `AuthEngineBackedPlugin`), and keeps a ticket so that, once
    /// confirmed, ``autoSignIn()`` can sign them in. - Throws: `AuthError`.
    public func signUp(username: String, password: String?, options: AuthSignUpRequest.Options?) async throws -> AuthSignUpResult {
        let result = try await authEvents.report(HubPayload.EventName.Auth.signUpAPI, username: username) {
            try await accountEngine().signUp(username: username, password: password, attributes: options?.userAttributes ?? [])
        }
        autoSignInTickets.issue(username, lifetime: try accountEngine().codeLifetime)
        return result
    }

    /// Confirms a new user; after a sign-up through this plugin the next step is
    /// `.completeAutoSignIn`, for ``autoSignIn()``. - Throws: `AuthError`.
    public func confirmSignUp(for username: String, confirmationCode: String, options: AuthConfirmSignUpRequest.Options?) async throws -> AuthSignUpResult {
        let tickets = autoSignInTickets
        return try await authEvents.report(HubPayload.EventName.Auth.confirmSignUpAPI, username: username) {
            let result = try await accountEngine().confirmSignUp(username: username, code: confirmationCode)
            guard tickets.confirm(username) else { return result }
            return AuthSignUpResult(.completeAutoSignIn(username), userID: result.userID)
        }
    }

    /// Signs in the user whose sign-up through this plugin was just confirmed; dispatches
    /// `Auth.autoSignInAPI` and `Auth.signedIn`.
    /// - Throws: `AuthError.invalidState` when no confirmed sign-up is waiting.
    public func autoSignIn() async throws -> AuthSignInResult {
        let tickets = autoSignInTickets
        let (result, user) = try await authEvents.report(HubPayload.EventName.Auth.autoSignInAPI, username: nil, published: \.0) {
            guard let username = tickets.takeConfirmed() else {
                throw AuthError.invalidState("No confirmed sign-up is waiting to sign in.", "Sign up and confirm with this plugin first, or call signIn.")
            }
            return try await accountEngine().autoSignIn(username: username)
        }
        authEvents.lifecycle(HubPayload.EventName.Auth.signedIn, user)
        return result
    }

    /// Sends a code to the signed-in user's email or phone number to verify it.
    /// - Throws: `AuthError.validation` for another attribute or one the user does not have.
    public func sendVerificationCode(
        forUserAttributeKey userAttributeKey: AuthUserAttributeKey, options: AuthSendUserAttributeVerificationCodeRequest.Options?
    ) async throws -> AuthCodeDeliveryDetails {
        try await authEvents.report(HubPayload.EventName.Auth.sendUserAttributeVerificationCodeAPI) {
            try await accountEngine().sendVerificationCode(for: userAttributeKey)
        }
    }

    /// Checks the code and sets `<attribute>_verified` to `"true"`.
    /// - Throws: `AuthError.validation` for a wrong, used or expired code.
    public func confirm(userAttribute: AuthUserAttributeKey, confirmationCode: String, options: AuthConfirmUserAttributeRequest.Options?) async throws {
        try await authEvents.report(HubPayload.EventName.Auth.confirmUserAttributesAPI) {
            try await accountEngine().confirmAttribute(userAttribute, code: confirmationCode)
        }
    }

    /// Sends a new code for the attribute (the previous one stops working).
    /// - Throws: `AuthError.validation` for another attribute or one the user does not have.
    public func resendConfirmationCode(
        forUserAttributeKey userAttributeKey: AuthUserAttributeKey, options: AuthAttributeResendConfirmationCodeRequest.Options?
    ) async throws -> AuthCodeDeliveryDetails {
        try await authEvents.report(HubPayload.EventName.Auth.attributeResendConfirmationCodeAPI) {
            try await accountEngine().sendVerificationCode(for: userAttributeKey)
        }
    }

    /// A new TOTP secret for the signed-in user (base 32 in the details; `getSetupURI(appName:)`
    /// gives the `otpauth://` URI). - Throws: `AuthError.signedOut` when nobody is signed in.
    public func setUpTOTP() async throws -> TOTPSetupDetails {
        try await authEvents.report(HubPayload.EventName.Auth.setUpTOTPAPI) { try await accountEngine().setUpTOTP() }
    }

    /// Finishes TOTP set-up with the authenticator's current code; turn TOTP on afterwards with
    /// ``updateMFAPreference(sms:totp:email:)``.
    /// - Throws: `AuthError.validation` for a wrong code, `AuthError.invalidState` with no set-up under way.
    public func verifyTOTPSetup(code: String, options: VerifyTOTPSetupRequest.Options?) async throws {
        try await authEvents.report(HubPayload.EventName.Auth.verifyTOTPSetupAPI) { try await accountEngine().verifyTOTPSetup(code: code) }
    }

    /// The signed-in user's MFA methods and preferred one (amplify-swift has it on its Cognito
    /// plugin). - Throws: `AuthError`.
    public func fetchMFAPreference() async throws -> UserMFAPreference {
        try await accountEngine().fetchMFAPreference()
    }

    /// Changes the signed-in user's MFA preferences (`nil`: unchanged).
    /// - Throws: `AuthError.invalidState` when a method cannot be on (TOTP not set up, no phone
    ///   number or email), `AuthError.validation` when two are preferred.
    public func updateMFAPreference(sms: MFAPreference? = nil, totp: MFAPreference? = nil, email: MFAPreference? = nil) async throws {
        try await accountEngine().updateMFAPreference(MFAPreference.changes(sms: sms, totp: totp, email: email))
    }
}
