import Amplify
import AmplifyAuthCore

/// amplify-swift's `listWebAuthnCredentials()` (always empty here) and
/// `deleteWebAuthnCredential(credentialId:)` (always not found) on the local pool.
extension LocalAuthPlugin: AuthCategoryWebAuthnBehaviour {}
