/// amplify-swift's account calls beyond those every Auth plugin has: attribute verification,
/// TOTP set-up and the sign-in that follows a confirmed sign-up. A plugin that can do them
/// conforms; `Amplify.Auth` forwards each call to its plugin when it does and throws
/// ``AuthError/configuration(_:_:_:)`` naming the plugin when it does not. (In amplify-swift they
/// are requirements of the category protocol; a separate protocol keeps every existing plugin
/// conforming.)
public protocol AuthCategoryExtendedBehavior: Sendable {
    /// Sends a code to verify the attribute (`.email`, `.phoneNumber`) of the signed-in user.
    /// - Throws: ``AuthError``.
    func sendVerificationCode(
        forUserAttributeKey userAttributeKey: AuthUserAttributeKey, options: AuthSendUserAttributeVerificationCodeRequest.Options?
    ) async throws -> AuthCodeDeliveryDetails
    /// Verifies the attribute with the code; it is then marked verified.
    /// - Throws: ``AuthError/validation(_:_:_:_:)`` for a wrong or expired code.
    func confirm(userAttribute: AuthUserAttributeKey, confirmationCode: String, options: AuthConfirmUserAttributeRequest.Options?) async throws
    /// Sends a new verification code for the attribute. - Throws: ``AuthError``.
    func resendConfirmationCode(
        forUserAttributeKey userAttributeKey: AuthUserAttributeKey, options: AuthAttributeResendConfirmationCodeRequest.Options?
    ) async throws -> AuthCodeDeliveryDetails
    /// Starts TOTP set-up for the signed-in user: the shared secret an authenticator app needs.
    /// - Throws: ``AuthError``.
    func setUpTOTP() async throws -> TOTPSetupDetails
    /// Finishes TOTP set-up with a code from the authenticator app.
    /// - Throws: ``AuthError/validation(_:_:_:_:)`` for a wrong code.
    func verifyTOTPSetup(code: String, options: VerifyTOTPSetupRequest.Options?) async throws
    /// Signs in the user whose sign-up was just confirmed (after `confirmSignUp` returned
    /// `.completeAutoSignIn`), without asking for the password again.
    /// - Throws: ``AuthError/invalidState(_:_:_:)`` when no confirmed sign-up is waiting.
    func autoSignIn() async throws -> AuthSignInResult
}

/// Options for `sendVerificationCode(forUserAttributeKey:options:)`.
public enum AuthSendUserAttributeVerificationCodeRequest {
    /// Plugin options.
    public typealias Options = AuthPluginOptions
}

/// Options for `confirm(userAttribute:confirmationCode:options:)`.
public enum AuthConfirmUserAttributeRequest {
    /// Plugin options.
    public typealias Options = AuthPluginOptions
}

/// Options for `resendConfirmationCode(forUserAttributeKey:options:)`.
public enum AuthAttributeResendConfirmationCodeRequest {
    /// Plugin options.
    public typealias Options = AuthPluginOptions
}

/// Options for `verifyTOTPSetup(code:options:)`.
public enum VerifyTOTPSetupRequest {
    /// Plugin options (the device's friendly name, for Cognito).
    public typealias Options = AuthPluginOptions
}

/// How a user wants one MFA method, for `updateMFAPreference(sms:totp:email:)`.
public enum MFAPreference: Sendable, Equatable {
    /// Turned off.
    case disabled
    /// Turned on.
    case enabled
    /// Turned on, and the one asked for first.
    case preferred
    /// Turned on, and not the one asked for first.
    case notPreferred

    /// The changes `updateMFAPreference(sms:totp:email:)` asks for, by method (`nil` ones left out).
    public static func changes(sms: MFAPreference?, totp: MFAPreference?, email: MFAPreference?) -> [MFAType: MFAPreference] {
        var changes: [MFAType: MFAPreference] = [:]
        changes[.sms] = sms
        changes[.totp] = totp
        changes[.email] = email
        return changes
    }
}

/// The MFA methods a user has on, and the preferred one.
public struct UserMFAPreference: Sendable, Equatable {
    /// The methods turned on (`nil` for none).
    public let enabled: Set<MFAType>?
    /// The preferred method, if one is.
    public let preferred: MFAType?

    /// A preference.
    public init(enabled: Set<MFAType>?, preferred: MFAType?) {
        self.enabled = enabled
        self.preferred = preferred
    }
}

/// The Hub event names of the extended calls (amplify-swift's strings).
extension HubPayload.EventName.Auth {
    /// `sendVerificationCode(forUserAttributeKey:)`.
    public static let sendUserAttributeVerificationCodeAPI = "Auth.sendUserAttributeVerificationCodeAPI"
    /// `confirm(userAttribute:confirmationCode:)`.
    public static let confirmUserAttributesAPI = "Auth.confirmUserAttributesAPI"
    /// `resendConfirmationCode(forUserAttributeKey:)`.
    public static let attributeResendConfirmationCodeAPI = "Auth.attributeResendConfirmationCodeAPI"
    /// `setUpTOTP()`.
    public static let setUpTOTPAPI = "Auth.setUpTOTPAPI"
    /// `verifyTOTPSetup(code:)`.
    public static let verifyTOTPSetupAPI = "Auth.verifyTOTPSetupAPI"
    /// `autoSignIn()`.
    public static let autoSignInAPI = "Auth.autoSignInAPI"
}

/// The extended calls on `Amplify.Auth`: each goes to the one Auth plugin when it conforms to
/// ``AuthCategoryExtendedBehavior``.
extension AuthCategory {
    private func extended() throws -> any AuthCategoryExtendedBehavior {
        let plugin = try getSelected()
        guard let extended = plugin as? any AuthCategoryExtendedBehavior else {
            throw AuthError.configuration(
                "The Auth plugin '\(plugin.key)' does not support this call (it is not an AuthCategoryExtendedBehavior).",
                "Use an Auth plugin that supports it, such as localAuthPlugin or awsCognitoAuthPlugin.")
        }
        return extended
    }

    /// Sends a code to verify the signed-in user's attribute. - Throws: ``AuthError``.
    public func sendVerificationCode(
        forUserAttributeKey userAttributeKey: AuthUserAttributeKey, options: AuthSendUserAttributeVerificationCodeRequest.Options? = nil
    ) async throws -> AuthCodeDeliveryDetails {
        try await extended().sendVerificationCode(forUserAttributeKey: userAttributeKey, options: options)
    }

    /// Verifies the attribute with the code. - Throws: ``AuthError``.
    public func confirm(userAttribute: AuthUserAttributeKey, confirmationCode: String, options: AuthConfirmUserAttributeRequest.Options? = nil)
        async throws
    {
        try await extended().confirm(userAttribute: userAttribute, confirmationCode: confirmationCode, options: options)
    }

    /// Sends a new verification code for the attribute. - Throws: ``AuthError``.
    public func resendConfirmationCode(
        forUserAttributeKey userAttributeKey: AuthUserAttributeKey, options: AuthAttributeResendConfirmationCodeRequest.Options? = nil
    ) async throws -> AuthCodeDeliveryDetails {
        try await extended().resendConfirmationCode(forUserAttributeKey: userAttributeKey, options: options)
    }

    /// Starts TOTP set-up for the signed-in user. - Throws: ``AuthError``.
    public func setUpTOTP() async throws -> TOTPSetupDetails {
        try await extended().setUpTOTP()
    }

    /// Finishes TOTP set-up with a code from the authenticator app. - Throws: ``AuthError``.
    public func verifyTOTPSetup(code: String, options: VerifyTOTPSetupRequest.Options? = nil) async throws {
        try await extended().verifyTOTPSetup(code: code, options: options)
    }

    /// Signs in the user whose sign-up was just confirmed. - Throws: ``AuthError``.
    public func autoSignIn() async throws -> AuthSignInResult {
        try await extended().autoSignIn()
    }
}
