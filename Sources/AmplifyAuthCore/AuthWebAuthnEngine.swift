import Amplify

/// An engine that can list and delete the signed-in user's WebAuthn credentials: with it, the
/// extension below gives its ``AuthEngineBackedPlugin`` amplify-swift's calls, each reported on
/// the Hub under amplify-swift's event name.
public protocol AuthWebAuthnEngine: AuthAccountEngine {
    /// A page of at most `pageSize` credentials from `nextToken`. - Throws: `AuthError`.
    func listWebAuthnCredentials(pageSize: Int, nextToken: String?) async throws -> AuthListWebAuthnCredentialsResult
    /// Deletes the credential. - Throws: `AuthError`.
    func deleteWebAuthnCredential(credentialId: String) async throws
}

/// The default: each WebAuthn call runs on the engine and is reported on the Hub's `.auth` channel.
extension AuthEngineBackedPlugin where Engine: AuthWebAuthnEngine {
    /// A page of the signed-in user's credentials (20 by default).
    /// - Throws: `AuthError.validation` for a page size outside 1 – 20, or the engine's error.
    public func listWebAuthnCredentials(options: AuthListWebAuthnCredentialsRequest.Options?) async throws -> AuthListWebAuthnCredentialsResult {
        let size = options?.pageSize ?? 20
        let next = options?.nextToken
        return try await authEvents.report(HubPayload.EventName.Auth.listWebAuthnCredentialsAPI) {
            guard (1...20).contains(size) else {
                throw AuthError.validation("pageSize", "The page size is \(size); it must be 1 to 20.", "Pass a pageSize from 1 to 20.")
            }
            return try await accountEngine().listWebAuthnCredentials(pageSize: Int(size), nextToken: next)
        }
    }

    /// Deletes the signed-in user's credential `credentialId`. - Throws: `AuthError`.
    public func deleteWebAuthnCredential(credentialId: String, options: AuthDeleteWebAuthnCredentialRequest.Options?) async throws {
        try await authEvents.report(HubPayload.EventName.Auth.deleteWebAuthnCredentialAPI) {
            try await accountEngine().deleteWebAuthnCredential(credentialId: credentialId)
        }
    }
}
