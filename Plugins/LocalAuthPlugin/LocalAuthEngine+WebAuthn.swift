import Amplify
import AmplifyAuthCore
import Foundation

/// WebAuthn on the local pool: it registers no passkeys (registering one needs a platform
/// authenticator), so a signed-in user's list is empty and every credential id is unknown.
extension LocalAuthEngine: AuthWebAuthnEngine {
    /// An empty page (after checking that someone is signed in).
    public func listWebAuthnCredentials(pageSize: Int, nextToken: String?) async throws -> AuthListWebAuthnCredentialsResult {
        _ = try await requireUser()
        return AuthListWebAuthnCredentialsResult(credentials: [], nextToken: nil)
    }

    /// - Throws: `AuthError.validation`, always: the local pool has no such credential.
    public func deleteWebAuthnCredential(credentialId: String) async throws {
        _ = try await requireUser()
        throw AuthError.validation(
            "credentialId", "There is no WebAuthn credential '\(credentialId)': the local pool registers no passkeys.",
            "List the credentials with listWebAuthnCredentials(); the local pool's list is always empty.")
    }
}
