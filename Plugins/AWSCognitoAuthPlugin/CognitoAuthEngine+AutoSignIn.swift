import Amplify
import AmplifyAuthCore
import Foundation

/// A confirmed sign-up `autoSignIn()` can complete: the user and ConfirmSignUp's session.
struct AutoSignInTicket: Sendable {
    let username: String
    let session: String
}

/// amplify-swift's auto sign-in on Cognito: SignUp's `Session` goes with ConfirmSignUp, whose
/// answer's `Session` then signs the user in with InitiateAuth `USER_AUTH` (no password asked
/// again). The ticket belongs to the session holder (process-wide, or the server context) that
/// confirmed the sign-up.
extension CognitoAuthEngine {
    /// How long SignUp's session is kept for the confirmation (Cognito's codes last 24 hours).
    static let signUpSessionLifetime: TimeInterval = 24 * 3600
    /// The most sign-ups whose sessions are kept at once (the oldest goes first).
    static let signUpSessionLimit = 1024

    /// Keeps SignUp's `session` (if it sent one) for `username`'s confirmation.
    func keepSignUpSession(_ session: String?, for username: String) {
        let now = Date()
        signUpSessions = signUpSessions.filter { now.timeIntervalSince($0.value.at) < Self.signUpSessionLifetime }
        guard let session, !session.isEmpty else {
            signUpSessions[username] = nil
            return
        }
        if signUpSessions.count >= Self.signUpSessionLimit, let oldest = signUpSessions.min(by: { $0.value.at < $1.value.at })?.key {
            signUpSessions[oldest] = nil
        }
        signUpSessions[username] = (session, now)
    }

    /// `username`'s SignUp session (nil if none, or it lapsed); kept until a confirmation succeeds,
    /// so a wrong code can be retried with it.
    func signUpSession(for username: String) -> String? {
        guard let kept = signUpSessions[username], Date().timeIntervalSince(kept.at) < Self.signUpSessionLifetime else { return nil }
        return kept.session
    }

    /// Lets the calling session holder's ``autoSignIn()`` sign `username` in with `session`.
    /// - Throws: `AuthError.invalidState(_:_:_:)` in a server context of another pool.
    func keepAutoSignIn(username: String, session: String) throws {
        autoSignIns.set(AutoSignInTicket(username: username, session: session), for: try sessions())
    }

    /// InitiateAuth `USER_AUTH` with the confirmed sign-up's session: signed in, or the step
    /// Cognito asks for next (an MFA code, say), answered with `confirmSignIn`.
    /// - Throws: `AuthError.invalidState(_:_:_:)` when no confirmed sign-up is waiting (or it
    ///   lapsed) or someone is signed in; Cognito's refusal otherwise.
    func autoSignIn() async throws -> (AuthSignInResult, SignedInUser?) {
        try await prepare()
        let holder = try sessions()
        guard let ticket = autoSignIns.challenge(for: holder) else {
            throw AuthError.invalidState(
                "No confirmed sign-up is waiting to sign in.",
                "Call signUp and confirmSignUp (whose next step is .completeAutoSignIn) first, or call signIn.")
        }
        if let session = await holder.current {
            throw AuthError.invalidState("'\(session.username)' is already signed in.", "Sign out first.")
        }
        try requireNotFederated()
        autoSignIns.set(nil, for: holder)
        let answer = try await service.initiateAuth(
            flow: "USER_AUTH", parameters: ["USERNAME": ticket.username], username: ticket.username, session: ticket.session)
        return try await handle(answer, username: ticket.username)
    }
}
