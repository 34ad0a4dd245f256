import Amplify
import AmplifyAuthCore
import Foundation

/// amplify-swift's attribute verification, TOTP set-up and MFA preference calls on Cognito
/// (from `AuthExtendedAccountEngine`'s extension), and its auto sign-in.
extension AWSCognitoAuthPlugin: AuthCategoryExtendedBehavior {
    /// Signs in the user whose `confirmSignUp` returned `.completeAutoSignIn` (InitiateAuth
    /// `USER_AUTH` with ConfirmSignUp's session; the app client needs `ALLOW_USER_AUTH`), in the
    /// same session (process-wide, or the same server context) that confirmed it. Dispatches
    /// `Auth.autoSignInAPI`, and `Auth.signedIn` when no further step is asked for.
    /// - Throws: `AuthError.invalidState` when no confirmed sign-up is waiting, or Cognito's refusal.
    public func autoSignIn() async throws -> AuthSignInResult {
        let (result, user) = try await authEvents.report(HubPayload.EventName.Auth.autoSignInAPI, username: nil, published: \.0) {
            try await engine().autoSignIn()
        }
        if let user { authEvents.lifecycle(HubPayload.EventName.Auth.signedIn, user) }
        return result
    }
}

/// amplify-swift's `fetchDevices()`, `rememberDevice()` and `forgetDevice(_:)` on Cognito (from
/// `AuthDeviceEngine`'s extension): ListDevices, UpdateDeviceStatus and ForgetDevice.
extension AWSCognitoAuthPlugin: AuthCategoryDeviceBehavior {}

/// amplify-swift's federation calls, methods of the Cognito plugin there as here (reach them with
/// `Amplify.Auth.getPlugin(for: "awsCognitoAuthPlugin") as? AWSCognitoAuthPlugin`).
extension AWSCognitoAuthPlugin {
    /// Exchanges an identity provider's token for identity-pool credentials (GetId and
    /// GetCredentialsForIdentity with `Logins`; with `developerProvidedIdentityID`, that identity
    /// without GetId). Until ``clearFederationToIdentityPool(options:)`` the other AWS plugins use
    /// them and `fetchAuthSession` is signed in with no user pool tokens. Dispatches
    /// `Auth.federatedToIdentityPool`. Kept in memory only: a restart is not federated.
    /// - Throws: `AuthError.configuration` without an identity pool, `AuthError.invalidState`
    ///   while a user is signed in or inside a server context, `AuthError.notAuthorized` when the
    ///   identity pool refuses the token.
    public func federateToIdentityPool(
        withProviderToken token: String, for provider: AuthProvider, options: AuthFederateToIdentityPoolRequest.Options? = nil
    ) async throws -> FederateToIdentityPoolResult {
        try await authEvents.report(HubPayload.EventName.Auth.federateToIdentityPoolAPI) {
            try await engine().federate(token: token, provider: provider, identityId: options?.developerProvidedIdentityID)
        }
    }

    /// Ends the federation (`Auth.federationToIdentityPoolCleared`).
    /// - Throws: `AuthError.invalidState` when not federated.
    public func clearFederationToIdentityPool(options: AuthClearFederationToIdentityPoolRequest.Options? = nil) async throws {
        try await authEvents.report(HubPayload.EventName.Auth.clearedFederationToIdentityPoolAPI) { try await engine().clearFederation() }
    }
}

/// amplify-swift's `listWebAuthnCredentials()` and `deleteWebAuthnCredential(credentialId:)` on
/// Cognito (from `AuthWebAuthnEngine`'s extension).
extension AWSCognitoAuthPlugin: AuthCategoryWebAuthnBehaviour {}
