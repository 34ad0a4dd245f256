import Foundation

/// The multi-factor methods a user can be asked for.
public enum MFAType: String, Sendable, Hashable, CaseIterable {
    /// A code by text message.
    case sms = "SMS_MFA"
    /// A code from an authenticator app.
    case totp = "SOFTWARE_TOKEN_MFA"
    /// A code by email.
    case email = "EMAIL_OTP"
}

extension MFAType {
    /// What to pass to `confirmSignIn(challengeResponse:)` to choose this method at the
    /// `.continueSignInWithMFASelection` step (as amplify-swift's: `SMS_MFA`,
    /// `SOFTWARE_TOKEN_MFA`, `EMAIL_OTP`).
    public var challengeResponse: String { rawValue }
}

/// The set of multi-factor methods a user may choose from.
public typealias AllowedMFATypes = Set<MFAType>

/// What a TOTP authenticator app needs to be set up.
public struct TOTPSetupDetails: Sendable, Hashable {
    /// The shared secret, base32.
    public let sharedSecret: String
    /// The user name shown in the authenticator app.
    public let username: String

    /// Setup details with `sharedSecret` for `username`.
    public init(sharedSecret: String, username: String) {
        self.sharedSecret = sharedSecret
        self.username = username
    }

    /// The `otpauth://totp/…` URI an authenticator app reads (as a QR code or pasted), as
    /// amplify-swift's `getSetupURI(appName:accountName:)`.
    /// - Throws: ``AuthError/validation(_:_:_:_:)`` when the names make no valid URI.
    public func getSetupURI(appName: String, accountName: String? = nil) throws -> URL {
        var components = URLComponents()
        components.scheme = "otpauth"
        components.host = "totp"
        components.path = "/\(appName):\(accountName ?? username)"
        components.queryItems = [URLQueryItem(name: "secret", value: sharedSecret), URLQueryItem(name: "issuer", value: appName)]
        guard let url = components.url else {
            throw AuthError.validation("appName", "'\(appName)' and '\(accountName ?? username)' make no otpauth URI.", "Use plain names.")
        }
        return url
    }
}

/// What is left to do after `signIn` or `confirmSignIn`.
public enum AuthSignInStep: Sendable, Equatable {
    /// Answer the code sent by text message with `confirmSignIn`.
    case confirmSignInWithSMSMFACode(AuthCodeDeliveryDetails, AdditionalInfo?)
    /// Answer the custom challenge with `confirmSignIn`.
    case confirmSignInWithCustomChallenge(AdditionalInfo?)
    /// Choose a new password and pass it to `confirmSignIn`.
    case confirmSignInWithNewPassword(AdditionalInfo?)
    /// Answer with the code from the authenticator app.
    case confirmSignInWithTOTPCode
    /// Answer with the code sent by email.
    case confirmSignInWithOTP(AuthCodeDeliveryDetails)
    /// Set up an authenticator app, then answer with its code.
    case continueSignInWithTOTPSetup(TOTPSetupDetails)
    /// Choose one of the multi-factor methods.
    case continueSignInWithMFASelection(AllowedMFATypes)
    /// Choose the first factor (`AuthFactorType.challengeResponse`) of a `USER_AUTH` sign-in.
    case continueSignInWithFirstFactorSelection(AvailableAuthFactorTypes)
    /// Answer with the password (the first factor chosen was the password).
    case confirmSignInWithPassword
    /// The password must be reset first.
    case resetPassword(AdditionalInfo?)
    /// The account must be confirmed first.
    case confirmSignUp(AdditionalInfo?)
    /// Signed in.
    case done
}

/// The outcome of `signIn` and `confirmSignIn`.
public struct AuthSignInResult: Sendable, Equatable {
    /// What to do next.
    public let nextStep: AuthSignInStep

    /// `true` when the user is signed in.
    public var isSignedIn: Bool { nextStep == .done }

    /// A result with `nextStep`.
    public init(nextStep: AuthSignInStep) {
        self.nextStep = nextStep
    }
}
