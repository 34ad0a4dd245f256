import Amplify
import AmplifyAuthCore
import Foundation

/// The tokens of a local session.
public struct LocalAuthTokens: Sendable, Equatable {
    /// The ID token (ES256 JWT with the user's attributes).
    public let idToken: String
    /// The access token (ES256 JWT).
    public let accessToken: String
    /// When both expire.
    public let expiresAt: Date
}

/// What `fetchAuthSession` returns from the local plugin.
public struct LocalAuthSession: AuthSession, Equatable {
    /// Whether a user is signed in with a session that can make calls.
    public let isSignedIn: Bool
    /// The signed-in user's id.
    public let userSub: String?
    /// The tokens, when signed in.
    public let tokens: LocalAuthTokens?
}

/// The local plugin's signed-in user.
public struct LocalAuthUser: AuthUser, Equatable {
    /// The name the user signs in with.
    public let username: String
    /// The user's stable id (`sub`).
    public let userId: String
}

/// What `signOut` did.
public struct LocalSignOutResult: AuthSignOutResult, Equatable {
    /// Whether the local session is gone.
    public let signedOutLocally: Bool
    /// Whether the session's refresh token (or, globally, every one of the user's) was revoked.
    public let revokedTokens: Bool
    /// Why something did not happen, if it did not.
    public let message: String?
}
