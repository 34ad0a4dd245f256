/// amplify-swift's WebAuthn credential management (its spelling): listing and deleting the
/// signed-in user's passkeys. (Registering one, `associateWebAuthnCredential`, needs a platform
/// authenticator UI, which a Linux server has not.) `Amplify.Auth` forwards each call to its
/// plugin when it conforms and throws ``AuthError/configuration(_:_:_:)`` when it does not.
public protocol AuthCategoryWebAuthnBehaviour: Sendable {
    /// A page of the signed-in user's WebAuthn credentials.
    /// - Throws: ``AuthError/validation(_:_:_:_:)`` for a page size outside 1 – 20,
    ///   ``AuthError/signedOut(_:_:_:)`` when nobody is signed in, or the plugin's error.
    func listWebAuthnCredentials(options: AuthListWebAuthnCredentialsRequest.Options?) async throws -> AuthListWebAuthnCredentialsResult
    /// Deletes the signed-in user's credential `credentialId`.
    /// - Throws: the plugin's error for a credential that does not exist.
    func deleteWebAuthnCredential(credentialId: String, options: AuthDeleteWebAuthnCredentialRequest.Options?) async throws
}

/// The Hub event names of the WebAuthn calls (amplify-swift's strings).
extension HubPayload.EventName.Auth {
    /// `listWebAuthnCredentials()`.
    public static let listWebAuthnCredentialsAPI = "Auth.listWebAuthnCredentialsAPI"
    /// `deleteWebAuthnCredential(credentialId:)`.
    public static let deleteWebAuthnCredentialAPI = "Auth.deleteWebAuthnCredentialAPI"
}

/// The WebAuthn calls on `Amplify.Auth`: each goes to the Auth plugin in effect when it conforms
/// to ``AuthCategoryWebAuthnBehaviour``.
extension AuthCategory {
    private func webAuthn() throws -> any AuthCategoryWebAuthnBehaviour {
        let plugin = try getSelected()
        guard let webAuthn = plugin as? any AuthCategoryWebAuthnBehaviour else {
            throw AuthError.configuration(
                "The Auth plugin '\(plugin.key)' does not manage WebAuthn credentials (it is not an AuthCategoryWebAuthnBehaviour).",
                "Use an Auth plugin that does, such as awsCognitoAuthPlugin.")
        }
        return webAuthn
    }

    /// A page of the signed-in user's WebAuthn credentials. - Throws: ``AuthError``.
    public func listWebAuthnCredentials(options: AuthListWebAuthnCredentialsRequest.Options? = nil) async throws -> AuthListWebAuthnCredentialsResult
    {
        try await webAuthn().listWebAuthnCredentials(options: options)
    }

    /// Deletes the signed-in user's credential `credentialId`. - Throws: ``AuthError``.
    public func deleteWebAuthnCredential(credentialId: String, options: AuthDeleteWebAuthnCredentialRequest.Options? = nil) async throws {
        try await webAuthn().deleteWebAuthnCredential(credentialId: credentialId, options: options)
    }
}
