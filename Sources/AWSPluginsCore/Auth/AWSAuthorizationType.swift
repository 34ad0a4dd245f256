import Amplify

/// The authorization modes of AppSync and API Gateway (amplify-swift's enum), by the names the
/// configuration files use: pass one as a `GraphQLRequest`'s `authMode` to override the API's
/// default for that request.
public enum AWSAuthorizationType: String, AuthorizationMode, CaseIterable, Equatable {
    /// No authorization.
    case none = "NONE"
    /// The API's key, in `x-api-key`.
    case apiKey = "API_KEY"
    /// SigV4 with AWS credentials (the identity pool's, the environment's, a profile's).
    case awsIAM = "AWS_IAM"
    /// A token from the application's OIDC provider (``AmplifyOIDCAuthProvider``).
    case openIDConnect = "OPENID_CONNECT"
    /// The signed-in user's Cognito user pool access token.
    case amazonCognitoUserPools = "AMAZON_COGNITO_USER_POOLS"
    /// A token for the API's Lambda authorizer (``AmplifyFunctionAuthProvider``).
    case function = "AWS_LAMBDA"
}
