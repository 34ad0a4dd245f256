import AWSPluginsCore
import Amplify
import Foundation

/// The user pool tokens of a session.
public struct AWSCognitoUserPoolTokens: Sendable, Equatable {
    /// The ID token (RS256 JWT with the user's attributes).
    public let idToken: String
    /// The access token (RS256 JWT), for Cognito's user calls and your own APIs.
    public let accessToken: String
    /// The refresh token.
    public let refreshToken: String
    /// When the access token expires.
    public let expiration: Date
}

/// What `fetchAuthSession` returns: amplify-swift's `AWSAuthCognitoSession`, with each part a
/// `Result` (a part can fail while the rest works: the identity pool may be unreachable while
/// the user pool session is fine).
public struct AWSAuthCognitoSession: AuthSession {
    /// Whether a user is signed in with a session that can make calls.
    public let isSignedIn: Bool
    /// The user's `sub`.
    public let userSubResult: Result<String, AuthError>
    /// The user pool tokens.
    public let userPoolTokensResult: Result<AWSCognitoUserPoolTokens, AuthError>
    /// The identity pool's identity id (guest or authenticated).
    public let identityIdResult: Result<String, AuthError>
    /// Temporary AWS credentials from the identity pool.
    public let awsCredentialsResult: Result<AWSCredentials, AuthError>

    /// The user's `sub`.
    public func getUserSub() -> Result<String, AuthError> { userSubResult }
    /// The user pool tokens.
    public func getCognitoTokens() -> Result<AWSCognitoUserPoolTokens, AuthError> { userPoolTokensResult }
    /// The identity id.
    public func getIdentityId() -> Result<String, AuthError> { identityIdResult }
    /// The AWS credentials.
    public func getAWSCredentials() -> Result<AWSCredentials, AuthError> { awsCredentialsResult }
}

/// The signed-in user.
public struct AWSCognitoAuthUser: AuthUser, Equatable {
    /// The username Cognito knows the user by.
    public let username: String
    /// The user's `sub`.
    public let userId: String
}

/// What `signOut` did, as amplify-swift's `AWSCognitoSignOutResult`.
public enum AWSCognitoSignOutResult: AuthSignOutResult, CustomStringConvertible {
    /// Signed out, and the tokens were revoked (or, globally, every session ended).
    case complete
    /// Signed out here, but the tokens could not be revoked (they stay valid until they expire).
    case partial(revokeTokenError: AuthError?, globalSignOutError: AuthError?)
    /// Nobody was signed in, or the plugin is not configured.
    case failed(AuthError)

    /// Whether the local session is gone.
    public var signedOutLocally: Bool {
        if case .failed = self { return false }
        return true
    }

    /// "Signed out.", or what could not be done.
    public var description: String {
        switch self {
        case .complete: "Signed out."
        case .partial(let revoke, let global):
            "Signed out here, but "
                + [
                    revoke.map { "the refresh token was not revoked (\($0.errorDescription))" },
                    global.map { "the global sign-out failed (\($0.errorDescription))" },
                ]
                .compactMap { $0 }.joined(separator: " and ") + "."
        case .failed(let error): error.errorDescription
        }
    }
}

/// Options for `signIn` through this plugin: `AuthSignInRequest.Options(pluginOptions: AWSAuthSignInOptions(authFlowType: .userPassword))`.
public struct AWSAuthSignInOptions: AuthFlowTypeSignInOptions {
    /// The flow for this sign-in instead of the configured one.
    public let authFlowType: AuthFlowType?
    /// Options.
    public init(authFlowType: AuthFlowType? = nil) {
        self.authFlowType = authFlowType
    }
}

extension AWSAuthCognitoSession: AuthUserPoolTokensSession {
    /// The access token of ``userPoolTokensResult``.
    public var userPoolAccessToken: Result<String, AuthError> { userPoolTokensResult.map(\.accessToken) }
}
