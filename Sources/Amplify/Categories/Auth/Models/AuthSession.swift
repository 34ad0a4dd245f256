/// The current authentication session. Plugins return richer types (tokens, credentials);
/// cast to reach them.
public protocol AuthSession: Sendable {
    /// Whether a user is signed in with a session that can still make calls.
    var isSignedIn: Bool { get }
}

/// The signed-in user.
public protocol AuthUser: Sendable {
    /// The name the user signs in with.
    var username: String { get }
    /// The user's stable id (`sub`).
    var userId: String { get }
}

/// The outcome of `signOut`, which never throws: plugins return a type that says how far the
/// sign-out got.
public protocol AuthSignOutResult: Sendable {
    /// Whether the local session is gone (it is, unless the plugin could not reach its store).
    var signedOutLocally: Bool { get }
}

/// A session that knows the signed-in user's groups (Cognito's `cognito:groups` claim); the
/// Storage plugins read it to apply Gen 2 group access rules.
public protocol AuthUserGroupsProviding: Sendable {
    /// The user's groups (empty when signed out or in none).
    var userGroups: [String] { get }
}
