import Amplify

/// Gives a token on demand (amplify-swift's protocol).
public protocol AmplifyAuthTokenProvider: Sendable {
    /// A token.
    typealias AuthToken = String
    /// The newest token (refreshed by the provider when it has expired).
    /// - Throws: any error; the request then fails with it.
    func getLatestAuthToken() async throws -> AuthToken
}

/// Tokens for `OPENID_CONNECT` APIs: the application's identity provider.
public protocol AmplifyOIDCAuthProvider: AmplifyAuthTokenProvider {}

/// Tokens for `AWS_LAMBDA` APIs: what the API's Lambda authorizer accepts.
public protocol AmplifyFunctionAuthProvider: AmplifyAuthTokenProvider {}

/// The token providers the API plugin asks for the `OPENID_CONNECT` and `AWS_LAMBDA` modes.
///
/// Differs from amplify-swift, where applications subclass it and override its two methods: a
/// class that can be subclassed cannot be checked `Sendable` under Swift 6, so this one is final
/// and takes the providers in its initializer (`APIAuthProviderFactory(oidc: MyProvider())`).
public final class APIAuthProviderFactory: Sendable {
    private let oidc: (any AmplifyOIDCAuthProvider)?
    private let function: (any AmplifyFunctionAuthProvider)?

    /// A factory with the given providers (none by default).
    /// - Parameters:
    ///   - oidc: gives tokens for `OPENID_CONNECT`.
    ///   - function: gives tokens for `AWS_LAMBDA`.
    public init(oidc: (any AmplifyOIDCAuthProvider)? = nil, function: (any AmplifyFunctionAuthProvider)? = nil) {
        self.oidc = oidc
        self.function = function
    }

    /// The provider for `OPENID_CONNECT`, if the application gave one.
    public func oidcAuthProvider() -> (any AmplifyOIDCAuthProvider)? { oidc }

    /// The provider for `AWS_LAMBDA`, if the application gave one.
    public func functionAuthProvider() -> (any AmplifyFunctionAuthProvider)? { function }
}

/// A session that holds Cognito user pool tokens (the Cognito plugin's `AWSAuthCognitoSession`
/// conforms): what the API plugin's `AMAZON_COGNITO_USER_POOLS` mode reads from
/// `Amplify.Auth.fetchAuthSession()`.
public protocol AuthUserPoolTokensSession: AuthSession {
    /// The signed-in user's access token, or why there is none (`AuthError.signedOut`, ...).
    var userPoolAccessToken: Result<String, AuthError> { get }
}
