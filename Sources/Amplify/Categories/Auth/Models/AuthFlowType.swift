/// A first factor of a `USER_AUTH` (choice-based) sign-in, as amplify-swift's. (WebAuthn, which
/// amplify-swift offers on iOS and macOS only, is not one here.)
public enum AuthFactorType: String, Sendable, Hashable, CaseIterable {
    /// The password, sent over TLS.
    case password
    /// The password, proven with SRP.
    case passwordSRP
    /// A one-time code by text message.
    case smsOTP
    /// A one-time code by email.
    case emailOTP

    /// What to pass to `confirmSignIn(challengeResponse:)` to choose this factor at the
    /// `.continueSignInWithFirstFactorSelection` step (Cognito's challenge names).
    public var challengeResponse: String {
        switch self {
        case .password: "PASSWORD"
        case .passwordSRP: "PASSWORD_SRP"
        case .smsOTP: "SMS_OTP"
        case .emailOTP: "EMAIL_OTP"
        }
    }

    /// The factor whose ``challengeResponse`` is `name` (any case), if one is.
    public init?(challengeResponse name: String) {
        guard let factor = Self.allCases.first(where: { $0.challengeResponse.caseInsensitiveCompare(name) == .orderedSame }) else { return nil }
        self = factor
    }
}

/// The first factors a user may choose from.
public typealias AvailableAuthFactorTypes = Set<AuthFactorType>

/// How `signIn` authenticates, as amplify-swift's (`AWSAuthSignInOptions(authFlowType:)`).
public enum AuthFlowType: Sendable, Equatable {
    /// Secure Remote Password (`USER_SRP_AUTH`).
    case userSRP
    /// The pool's custom challenges (`CUSTOM_AUTH`).
    @available(*, deprecated, message: "Use customWithSRP or customWithoutSRP")
    case custom
    /// SRP, then the custom challenges.
    case customWithSRP
    /// The custom challenges without SRP.
    case customWithoutSRP
    /// The password over TLS (`USER_PASSWORD_AUTH`).
    case userPassword
    /// Choice-based sign-in (`USER_AUTH`): the first factor `preferredFirstFactor`, or the user's
    /// choice among those the pool offers (`.continueSignInWithFirstFactorSelection`).
    case userAuth(preferredFirstFactor: AuthFactorType? = nil)
}

/// Sign-in options that carry an ``AuthFlowType``: the Cognito plugin's `AWSAuthSignInOptions`,
/// read by the local plugin too, so one app's code picks the flow whichever plugin runs it.
public protocol AuthFlowTypeSignInOptions: Sendable {
    /// The flow for this sign-in (`nil`: the configured one).
    var authFlowType: AuthFlowType? { get }
}
