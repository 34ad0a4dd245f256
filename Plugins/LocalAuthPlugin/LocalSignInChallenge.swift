import Amplify

/// A local sign-in whose password was right, waiting in `confirmSignIn` for its second factor.
struct LocalSignInChallenge: Sendable {
    /// What the next `confirmSignIn` answers.
    enum Step: Sendable, Equatable {
        /// The MFA method to use, one of these.
        case selectMFA(AllowedMFATypes)
        /// The code of this method (from the authenticator app, or sent by email or text).
        case code(MFAType)
    }

    /// The user signing in.
    let sub: String
    /// Their name, for messages.
    let username: String
    /// The step waited on.
    var step: Step
    /// Wrong codes so far; at the pool's `codeMaxAttempts` the sign-in is cancelled.
    var failures = 0
}
