import Amplify
import AmplifyAuthCore
import AmplifyConcurrency
import Foundation

/// The sign-ups made through the plugin that may end in `autoSignIn()`, until their ticket
/// lapses (the pool's code lifetime). A confirmed one moves to the engine, which keeps it for the
/// session (process-wide, or the server context) that confirmed it.
final class AutoSignInTickets: Sendable {
    private let signedUp = Locked([String: Date]())

    /// Keeps a ticket for `username` for `lifetime` seconds.
    func issue(_ username: String, lifetime: TimeInterval) {
        signedUp.withLock { $0[UsernameProfile.key(username)] = Date().addingTimeInterval(lifetime) }
    }

    /// Takes `username`'s ticket; `true` if it had a live one.
    func take(_ username: String) -> Bool {
        signedUp.withLock { tickets in
            let now = Date()
            tickets = tickets.filter { $0.value > now }
            return tickets.removeValue(forKey: UsernameProfile.key(username)) != nil
        }
    }
}

/// amplify-swift's attribute verification, TOTP set-up, MFA preferences and auto sign-in, on the
/// local pool. Codes go through the plugin's delivery (the outbox by default); TOTP is RFC 6238
/// (SHA-1, 6 digits, 30 s, one step of drift), each code accepted once. `autoSignIn()` follows a
/// `signUp` made through this plugin and confirmed within the pool's code lifetime: its
/// `confirmSignUp` then returns `.completeAutoSignIn`.
extension LocalAuthPlugin: AuthCategoryExtendedBehavior {
    /// Creates a user (see `AuthEngineBackedPlugin`), and keeps a ticket so that, once
    /// confirmed, ``autoSignIn()`` can sign them in. - Throws: `AuthError`.
    public func signUp(username: String, password: String?, options: AuthSignUpRequest.Options?) async throws -> AuthSignUpResult {
        let result = try await authEvents.report(HubPayload.EventName.Auth.signUpAPI, username: username) {
            try await accountEngine().signUp(username: username, password: password, attributes: options?.userAttributes ?? [])
        }
        autoSignInTickets.issue(username, lifetime: try accountEngine().codeLifetime)
        return result
    }

    /// Confirms a new user; after a sign-up through this plugin the next step is
    /// `.completeAutoSignIn`, for ``autoSignIn()``. - Throws: `AuthError`.
    public func confirmSignUp(for username: String, confirmationCode: String, options: AuthConfirmSignUpRequest.Options?) async throws
        -> AuthSignUpResult
    {
        let tickets = autoSignInTickets
        return try await authEvents.report(HubPayload.EventName.Auth.confirmSignUpAPI, username: username) {
            let engine = try accountEngine()
            let result = try await engine.confirmSignUp(username: username, code: confirmationCode)
            guard tickets.take(username) else { return result }
            try await engine.keepAutoSignIn(username: username)
            return AuthSignUpResult(.completeAutoSignIn(username), userID: result.userID)
        }
    }

    /// Signs in the user whose sign-up through this plugin was just confirmed, in the session
    /// (process-wide, or the server context) that confirmed it; a user with MFA on gets its step.
    /// Dispatches `Auth.autoSignInAPI`, and `Auth.signedIn` when signed in.
    /// - Throws: `AuthError.invalidState` when no confirmed sign-up is waiting.
    public func autoSignIn() async throws -> AuthSignInResult {
        let (result, user) = try await authEvents.report(HubPayload.EventName.Auth.autoSignInAPI, username: nil, published: \.0) {
            try await accountEngine().autoSignIn()
        }
        if let user { authEvents.lifecycle(HubPayload.EventName.Auth.signedIn, user) }
        return result
    }
}
