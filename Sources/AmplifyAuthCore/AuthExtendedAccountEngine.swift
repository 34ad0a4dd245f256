import Amplify

/// An engine that can also verify attributes, set up TOTP and keep MFA preferences: with it, the
/// extension below gives its ``AuthEngineBackedPlugin`` amplify-swift's calls for them, each
/// reported on the Hub under amplify-swift's event name. Both Auth plugins of this package are so.
public protocol AuthExtendedAccountEngine: AuthAccountEngine {
    /// Sends a code to verify the signed-in user's attribute. - Throws: `AuthError`.
    func sendVerificationCode(for key: AuthUserAttributeKey) async throws -> AuthCodeDeliveryDetails
    /// Checks the attribute's code. - Throws: `AuthError`.
    func confirmAttribute(_ key: AuthUserAttributeKey, code: String) async throws
    /// A TOTP secret for the signed-in user. - Throws: `AuthError`.
    func setUpTOTP() async throws -> TOTPSetupDetails
    /// Checks the authenticator's first code (`friendlyDeviceName` where the backend keeps one).
    /// - Throws: `AuthError`.
    func verifyTOTPSetup(code: String, friendlyDeviceName: String?) async throws
    /// The signed-in user's MFA methods and preferred one. - Throws: `AuthError`.
    func fetchMFAPreference() async throws -> UserMFAPreference
    /// Applies MFA preference changes. - Throws: `AuthError`.
    func updateMFAPreference(_ changes: [MFAType: MFAPreference]) async throws
}

/// The default: each extended call runs on the engine and is reported on the Hub's `.auth` channel.
extension AuthEngineBackedPlugin where Engine: AuthExtendedAccountEngine {
    /// Sends a code to verify the signed-in user's attribute. - Throws: `AuthError`.
    public func sendVerificationCode(
        forUserAttributeKey userAttributeKey: AuthUserAttributeKey, options: AuthSendUserAttributeVerificationCodeRequest.Options?
    ) async throws -> AuthCodeDeliveryDetails {
        try await authEvents.report(HubPayload.EventName.Auth.sendUserAttributeVerificationCodeAPI) {
            try await accountEngine().sendVerificationCode(for: userAttributeKey)
        }
    }

    /// Checks the code and marks the attribute verified. - Throws: `AuthError`.
    public func confirm(userAttribute: AuthUserAttributeKey, confirmationCode: String, options: AuthConfirmUserAttributeRequest.Options?) async throws
    {
        try await authEvents.report(HubPayload.EventName.Auth.confirmUserAttributesAPI) {
            try await accountEngine().confirmAttribute(userAttribute, code: confirmationCode)
        }
    }

    /// Sends a new code for the attribute (the previous one stops working). - Throws: `AuthError`.
    public func resendConfirmationCode(
        forUserAttributeKey userAttributeKey: AuthUserAttributeKey, options: AuthAttributeResendConfirmationCodeRequest.Options?
    ) async throws -> AuthCodeDeliveryDetails {
        try await authEvents.report(HubPayload.EventName.Auth.attributeResendConfirmationCodeAPI) {
            try await accountEngine().sendVerificationCode(for: userAttributeKey)
        }
    }

    /// A TOTP secret for the signed-in user (base 32; `getSetupURI(appName:)` gives the
    /// `otpauth://` URI). - Throws: `AuthError`.
    public func setUpTOTP() async throws -> TOTPSetupDetails {
        try await authEvents.report(HubPayload.EventName.Auth.setUpTOTPAPI) { try await accountEngine().setUpTOTP() }
    }

    /// Checks the authenticator's code (`options.pluginOptions` may be a `String`: the device's
    /// friendly name). - Throws: `AuthError`.
    public func verifyTOTPSetup(code: String, options: VerifyTOTPSetupRequest.Options?) async throws {
        let name = options?.pluginOptions as? String
        try await authEvents.report(HubPayload.EventName.Auth.verifyTOTPSetupAPI) {
            try await accountEngine().verifyTOTPSetup(code: code, friendlyDeviceName: name)
        }
    }

    /// The signed-in user's MFA methods and preferred one, as amplify-swift's
    /// `AWSCognitoAuthPlugin.fetchMFAPreference()`. - Throws: `AuthError`.
    public func fetchMFAPreference() async throws -> UserMFAPreference {
        try await accountEngine().fetchMFAPreference()
    }

    /// Changes the signed-in user's MFA preferences (`nil`: unchanged), as amplify-swift's
    /// `AWSCognitoAuthPlugin.updateMFAPreference(sms:totp:email:)`. - Throws: `AuthError`.
    public func updateMFAPreference(sms: MFAPreference? = nil, totp: MFAPreference? = nil, email: MFAPreference? = nil) async throws {
        try await accountEngine().updateMFAPreference(MFAPreference.changes(sms: sms, totp: totp, email: email))
    }
}
