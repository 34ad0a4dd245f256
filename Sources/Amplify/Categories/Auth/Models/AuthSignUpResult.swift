/// What is left to do after `signUp` or `confirmSignUp`.
public enum AuthSignUpStep: Sendable, Equatable {
    /// Confirm the account with the code that was sent.
    case confirmUser(AuthCodeDeliveryDetails? = nil, AdditionalInfo? = nil, UserId? = nil)
    /// Signed up and confirmed; a sign-in may follow automatically with the given session.
    case completeAutoSignIn(String)
    /// Nothing: the account is ready.
    case done
}

/// The outcome of `signUp` and `confirmSignUp`.
public struct AuthSignUpResult: Sendable, Equatable {
    /// What to do next.
    public let nextStep: AuthSignUpStep
    /// The new user's id, when the service gives one.
    public let userID: String?

    /// `true` when nothing is left to do.
    public var isSignUpComplete: Bool {
        switch nextStep {
        case .done, .completeAutoSignIn: true
        case .confirmUser: false
        }
    }

    /// A result with `nextStep`.
    public init(_ nextStep: AuthSignUpStep, userID: String? = nil) {
        self.nextStep = nextStep
        self.userID = userID
    }
}
