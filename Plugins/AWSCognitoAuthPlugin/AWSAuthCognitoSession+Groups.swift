import Amplify
import AmplifyAuthCore

/// The groups in the ID token, for Storage's Gen 2 group access rules.
extension AWSAuthCognitoSession: AuthUserGroupsProviding {
    /// The `cognito:groups` claim of the ID token (empty without tokens or groups).
    public var userGroups: [String] {
        guard case .success(let tokens) = userPoolTokensResult, let token = try? JSONWebToken(parsing: tokens.idToken) else { return [] }
        return token.claims["cognito:groups"]?.asArray?.compactMap(\.stringValue) ?? []
    }
}
