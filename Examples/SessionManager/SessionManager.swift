import Amplify
import AmplifyAuthCore
import Foundation

/// The session-manager pattern, server-side: one object the rest of the service asks "who is
/// signed in?", kept current by the Hub's auth events through ``AuthSessionState``, and the
/// flows that change it.
final class SessionManager: Sendable {
    let state = AuthSessionState()

    /// Prints each change of the session as it happens, until the state stops.
    func printChanges() async -> Task<Void, Never> {
        let updates = await state.updates
        return Task {
            for await status in updates { print("session: \(status)") }
        }
    }

    /// Signs `username` up and confirms the account with a code from `readCode`.
    func register(_ username: String, email: String, password: String, readCode: @Sendable () async throws -> String) async throws {
        let result = try await Amplify.Auth.signUp(
            username: username, password: password, options: .init(userAttributes: [AuthUserAttribute(.email, value: email)]))
        if !result.isSignUpComplete {
            _ = try await Amplify.Auth.confirmSignUp(for: username, confirmationCode: try await readCode())
        }
    }

    /// Signs in unless the state says someone already is (say, from a previous run).
    func ensureSignedIn(_ username: String, password: String) async throws {
        if await state.status.isSignedIn { return }
        _ = try await Amplify.Auth.signIn(username: username, password: password)
    }

    /// Waits until the state shows `status`, or `timeout` passes; returns whether it did.
    func wait(for status: AuthSessionState.Status, timeout: Duration = .seconds(15)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await state.status == status { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }
}
