import Amplify
import Foundation

/// amplify-swift's attribute verification, TOTP set-up and MFA preference calls on Cognito.
/// `autoSignIn()` (Cognito's `USER_AUTH` sign-in with the session a confirmed sign-up returns)
/// is not supported yet: it throws.
extension AWSCognitoAuthPlugin: AuthCategoryExtendedBehavior {
    /// GetUserAttributeVerificationCode. - Throws: `AuthError`.
    public func sendVerificationCode(
        forUserAttributeKey userAttributeKey: AuthUserAttributeKey, options: AuthSendUserAttributeVerificationCodeRequest.Options?
    ) async throws -> AuthCodeDeliveryDetails {
        try await authEvents.report(HubPayload.EventName.Auth.sendUserAttributeVerificationCodeAPI) {
            try await accountEngine().sendVerificationCode(for: userAttributeKey)
        }
    }

    /// VerifyUserAttribute. - Throws: `AuthError` (`CodeMismatchException`, `ExpiredCodeException` …).
    public func confirm(userAttribute: AuthUserAttributeKey, confirmationCode: String, options: AuthConfirmUserAttributeRequest.Options?) async throws {
        try await authEvents.report(HubPayload.EventName.Auth.confirmUserAttributesAPI) {
            try await accountEngine().confirmAttribute(userAttribute, code: confirmationCode)
        }
    }

    /// GetUserAttributeVerificationCode again (Cognito has no separate resend for attributes).
    /// - Throws: `AuthError`.
    public func resendConfirmationCode(
        forUserAttributeKey userAttributeKey: AuthUserAttributeKey, options: AuthAttributeResendConfirmationCodeRequest.Options?
    ) async throws -> AuthCodeDeliveryDetails {
        try await authEvents.report(HubPayload.EventName.Auth.attributeResendConfirmationCodeAPI) {
            try await accountEngine().sendVerificationCode(for: userAttributeKey)
        }
    }

    /// AssociateSoftwareToken for the signed-in user. - Throws: `AuthError`.
    public func setUpTOTP() async throws -> TOTPSetupDetails {
        try await authEvents.report(HubPayload.EventName.Auth.setUpTOTPAPI) { try await accountEngine().setUpTOTP() }
    }

    /// VerifySoftwareToken (`options.pluginOptions` may be a `String`: the device's friendly
    /// name). - Throws: `AuthError`.
    public func verifyTOTPSetup(code: String, options: VerifyTOTPSetupRequest.Options?) async throws {
        let name = options?.pluginOptions as? String
        try await authEvents.report(HubPayload.EventName.Auth.verifyTOTPSetupAPI) {
            try await accountEngine().verifyTOTPSetup(code: code, friendlyDeviceName: name)
        }
    }

    /// Not supported on Cognito yet.
    /// - Throws: `AuthError.invalidState`, always.
    public func autoSignIn() async throws -> AuthSignInResult {
        try await authEvents.report(HubPayload.EventName.Auth.autoSignInAPI) {
            throw AuthError.invalidState("autoSignIn() is not supported by the Cognito plugin yet.", "Call signIn(username:password:) after confirmSignUp.")
        }
    }

    /// The signed-in user's MFA methods and preferred one (GetUser), as amplify-swift's
    /// `AWSCognitoAuthPlugin.fetchMFAPreference()`. - Throws: `AuthError`.
    public func fetchMFAPreference() async throws -> UserMFAPreference {
        try await accountEngine().fetchMFAPreference()
    }

    /// SetUserMFAPreference for the methods given (`nil`: unchanged), as amplify-swift's
    /// `AWSCognitoAuthPlugin.updateMFAPreference(sms:totp:email:)`. - Throws: `AuthError`.
    public func updateMFAPreference(sms: MFAPreference? = nil, totp: MFAPreference? = nil, email: MFAPreference? = nil) async throws {
        try await accountEngine().updateMFAPreference(MFAPreference.changes(sms: sms, totp: totp, email: email))
    }
}
