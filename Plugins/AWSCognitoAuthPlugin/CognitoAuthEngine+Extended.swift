import AWSPluginsCore
import Amplify
import AmplifyAuthCore
import Foundation

/// Attribute verification, TOTP set-up and MFA preferences on Cognito: each a signed-in call
/// authorized by the access token (refreshed once when Cognito refuses it).
extension CognitoAuthEngine: AuthExtendedAccountEngine {
    /// GetUserAttributeVerificationCode: sends a code for the attribute.
    public func sendVerificationCode(for key: AuthUserAttributeKey) async throws -> AuthCodeDeliveryDetails {
        let service = service
        let answer = try await withAccessToken {
            try await service.call("GetUserAttributeVerificationCode", ["AccessToken": .string($0), "AttributeName": .string(key.rawValue)])
        }
        return CognitoUserPoolService.deliveryDetails(answer["CodeDeliveryDetails"])
    }

    /// VerifyUserAttribute: checks the code; Cognito marks the attribute verified.
    public func confirmAttribute(_ key: AuthUserAttributeKey, code: String) async throws {
        let service = service
        _ = try await withAccessToken {
            try await service.call(
                "VerifyUserAttribute", ["AccessToken": .string($0), "AttributeName": .string(key.rawValue), "Code": .string(code)])
        }
    }

    /// AssociateSoftwareToken with the access token: the TOTP secret for the signed-in user.
    public func setUpTOTP() async throws -> TOTPSetupDetails {
        let service = service
        let answer = try await withAccessToken { try await service.call("AssociateSoftwareToken", ["AccessToken": .string($0)]) }
        guard let secret = answer["SecretCode"]?.stringValue, !secret.isEmpty else {
            throw AuthError.service("AssociateSoftwareToken answered without a SecretCode.", "Check the user pool's endpoint.")
        }
        return TOTPSetupDetails(sharedSecret: secret, username: try await currentUser().username)
    }

    /// VerifySoftwareToken with the access token: checks the authenticator's first code.
    public func verifyTOTPSetup(code: String, friendlyDeviceName: String?) async throws {
        let service = service
        let answer = try await withAccessToken { token in
            var body: [String: JSONValue] = ["AccessToken": .string(token), "UserCode": .string(code)]
            if let friendlyDeviceName { body["FriendlyDeviceName"] = .string(friendlyDeviceName) }
            return try await service.call("VerifySoftwareToken", body)
        }
        guard answer["Status"]?.stringValue != "ERROR" else {
            throw AuthError.validation("code", "Cognito did not accept the TOTP code.", "Enter the code the authenticator app shows now.")
        }
    }

    /// GetUser's `UserMFASettingList` and `PreferredMfaSetting`.
    public func fetchMFAPreference() async throws -> UserMFAPreference {
        let service = service
        let answer = try await withAccessToken { try await service.getUser(accessToken: $0) }
        let enabled = Set((answer["UserMFASettingList"]?.asArray ?? []).compactMap { $0.stringValue.flatMap(Self.mfaType) })
        let preferred = answer["PreferredMfaSetting"]?.stringValue.flatMap(Self.mfaType)
        return UserMFAPreference(enabled: enabled.isEmpty ? nil : enabled, preferred: preferred)
    }

    /// SetUserMFAPreference with `SMSMfaSettings`, `SoftwareTokenMfaSettings` and
    /// `EmailMfaSettings` for the methods given.
    public func updateMFAPreference(_ changes: [MFAType: MFAPreference]) async throws {
        var body: [String: JSONValue] = [:]
        for (type, preference) in changes {
            let settings: JSONValue =
                switch preference {
                case .disabled: ["Enabled": false, "PreferredMfa": false]
                case .enabled: ["Enabled": true]
                case .preferred: ["Enabled": true, "PreferredMfa": true]
                case .notPreferred: ["Enabled": true, "PreferredMfa": false]
                }
            switch type {
            case .sms: body["SMSMfaSettings"] = settings
            case .totp: body["SoftwareTokenMfaSettings"] = settings
            case .email: body["EmailMfaSettings"] = settings
            }
        }
        let service = service
        let request = body
        _ = try await withAccessToken { token in
            var withToken = request
            withToken["AccessToken"] = .string(token)
            return try await service.call("SetUserMFAPreference", withToken)
        }
    }

    /// `SMS_MFA`, `SOFTWARE_TOKEN_MFA`, `EMAIL_OTP` (and GetUser's `EMAIL_MFA`).
    static func mfaType(_ name: String) -> MFAType? {
        name == "EMAIL_MFA" ? .email : MFAType(rawValue: name)
    }
}
