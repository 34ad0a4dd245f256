/// How a request is authorized: the API plugin's own modes (`AWSAuthorizationType` in
/// `AWSPluginsCore`: API key, IAM, user pools, OIDC, Lambda, none) conform to it.
///
/// Differs from amplify-swift in one way Swift 6 requires: it refines `Sendable`, since a
/// request carrying it crosses tasks.
public protocol AuthorizationMode: Sendable {}
