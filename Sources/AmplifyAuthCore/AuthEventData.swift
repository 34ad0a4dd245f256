import Amplify

/// The user named in `Auth.signedIn` (payload data) and in the observable state.
public struct SignedInUser: AuthUser, Equatable, Codable {
    /// The name the user signs in with.
    public let username: String
    /// The user's stable id.
    public let userId: String

    /// A user.
    public init(username: String, userId: String) {
        self.username = username
        self.userId = userId
    }
}

/// The payloads the Auth plugins of this package dispatch, for listeners to read:
/// - `Auth.signedIn`: data ``SignedInUser``;
/// - `Auth.signedOut`, `Auth.sessionExpired`, `Auth.userDeleted`: data the username (`String`);
/// - the same four from a server context or the session store, and `Auth.tokenRefreshed` /
///   `Auth.tokenRefreshFailed` from every session: data ``AuthUserEvent`` (username and sub);
/// - `Auth.*API`: data `Result<Success, AuthError>` of the call, context the username when the
///   call names one.
public enum AuthEventData {
    /// The username a lifecycle payload carries.
    public static func username(in payload: HubPayload) -> String? {
        (payload.data as? SignedInUser)?.username ?? (payload.data as? AuthUserEvent)?.username ?? (payload.data as? String)
            ?? (payload.context as? String)
    }
}

extension AuthEventData {
    /// The ``AuthUserEvent`` a payload carries, if it names a user that way.
    public static func user(in payload: HubPayload) -> AuthUserEvent? { payload.data as? AuthUserEvent }

    /// Whether the payload is about the process-wide session (not a context's or the store's).
    public static func isProcessWide(_ payload: HubPayload) -> Bool {
        guard let user = payload.data as? AuthUserEvent else { return true }
        return user.scope == .processWide
    }
}
