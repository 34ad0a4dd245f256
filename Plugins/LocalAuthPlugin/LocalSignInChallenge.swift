import Amplify

/// A local sign-in waiting in `confirmSignIn`: for its second factor, or (`USER_AUTH`) for its
/// first factor, its choice or its password.
struct LocalSignInChallenge: Sendable {
    /// What the next `confirmSignIn` answers.
    enum Step: Sendable, Equatable {
        /// The MFA method to use, one of these.
        case selectMFA(AllowedMFATypes)
        /// The code of this method (from the authenticator app, or sent by email or text: a
        /// second factor, or a passwordless first one).
        case code(MFAType)
        /// The first factor of a `USER_AUTH` sign-in, one of these.
        case selectFirstFactor(AvailableAuthFactorTypes)
        /// The password (the first factor chosen).
        case password
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
