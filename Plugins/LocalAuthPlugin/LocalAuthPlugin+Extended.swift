import Amplify
import AmplifyAuthCore
import AmplifyConcurrency
import Foundation

/// The sign-ups that may end in `autoSignIn()`: those made through the plugin (until their
/// ticket lapses), and the one confirmed last, which `autoSignIn()` takes.
final class AutoSignInTickets: Sendable {
    private struct State {
        var signedUp: [String: Date] = [:]
        var confirmed: (username: String, expiry: Date)?
    }

    private let state = Locked(State())

    /// Keeps a ticket for `username` for `lifetime` seconds.
    func issue(_ username: String, lifetime: TimeInterval) {
        state.withLock { $0.signedUp[LocalUserPool.canonical(username)] = Date().addingTimeInterval(lifetime) }
    }

    /// Moves `username`'s ticket, if it has a live one, to the confirmed slot; `true` if it did.
    func confirm(_ username: String) -> Bool {
        state.withLock { state in
            let key = LocalUserPool.canonical(username)
            guard let expiry = state.signedUp.removeValue(forKey: key), expiry > Date() else { return false }
            state.confirmed = (key, expiry)
            return true
        }
    }

    /// The confirmed sign-up waiting, taken (`nil` if none, or it lapsed).
    func takeConfirmed() -> String? {
        state.withLock { state in
            defer { state.confirmed = nil }
            guard let confirmed = state.confirmed, confirmed.expiry > Date() else { return nil }
            return confirmed.username
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
    public func confirmSignUp(for username: String, confirmationCode: String, options: AuthConfirmSignUpRequest.Options?) async throws -> AuthSignUpResult {
        let tickets = autoSignInTickets
        return try await authEvents.report(HubPayload.EventName.Auth.confirmSignUpAPI, username: username) {
            let result = try await accountEngine().confirmSignUp(username: username, code: confirmationCode)
            guard tickets.confirm(username) else { return result }
            return AuthSignUpResult(.completeAutoSignIn(username), userID: result.userID)
        }
    }

    /// Signs in the user whose sign-up through this plugin was just confirmed; dispatches
    /// `Auth.autoSignInAPI` and `Auth.signedIn`.
    /// - Throws: `AuthError.invalidState` when no confirmed sign-up is waiting.
    public func autoSignIn() async throws -> AuthSignInResult {
        let tickets = autoSignInTickets
        let (result, user) = try await authEvents.report(HubPayload.EventName.Auth.autoSignInAPI, username: nil, published: \.0) {
            guard let username = tickets.takeConfirmed() else {
                throw AuthError.invalidState("No confirmed sign-up is waiting to sign in.", "Sign up and confirm with this plugin first, or call signIn.")
            }
            return try await accountEngine().autoSignIn(username: username)
        }
        if let user { authEvents.lifecycle(HubPayload.EventName.Auth.signedIn, user) }
        return result
    }
}
