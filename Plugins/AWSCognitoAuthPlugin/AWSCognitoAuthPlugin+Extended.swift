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
