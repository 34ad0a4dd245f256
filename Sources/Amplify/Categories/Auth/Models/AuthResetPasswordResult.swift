/// What is left to do after `resetPassword`.
public enum AuthResetPasswordStep: Sendable, Equatable {
    /// Call `confirmResetPassword` with the code that was sent.
    case confirmResetPasswordWithCode(AuthCodeDeliveryDetails, AdditionalInfo?)
    /// Nothing.
    case done
}

/// The outcome of `resetPassword`.
public struct AuthResetPasswordResult: Sendable, Equatable {
    /// Whether the password is already reset.
    public let isPasswordReset: Bool
    /// What to do next.
    public let nextStep: AuthResetPasswordStep

    /// A result.
    public init(isPasswordReset: Bool, nextStep: AuthResetPasswordStep) {
        self.isPasswordReset = isPasswordReset
        self.nextStep = nextStep
    }
}
