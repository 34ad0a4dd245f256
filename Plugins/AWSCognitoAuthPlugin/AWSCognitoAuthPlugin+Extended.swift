import Amplify
import AmplifyAuthCore
import Foundation

/// amplify-swift's attribute verification, TOTP set-up and MFA preference calls on Cognito
/// (from `AuthExtendedAccountEngine`'s extension). `autoSignIn()` (Cognito's `USER_AUTH` sign-in
/// with the session a confirmed sign-up returns) is not supported yet: it throws.
extension AWSCognitoAuthPlugin: AuthCategoryExtendedBehavior {
    /// Not supported on Cognito yet.
    /// - Throws: `AuthError.invalidState`, always.
    public func autoSignIn() async throws -> AuthSignInResult {
        try await authEvents.report(HubPayload.EventName.Auth.autoSignInAPI) {
            throw AuthError.invalidState("autoSignIn() is not supported by the Cognito plugin yet.", "Call signIn(username:password:) after confirmSignUp.")
        }
    }
}
