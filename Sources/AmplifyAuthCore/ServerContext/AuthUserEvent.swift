import Amplify

/// The data of an `Auth.*` lifecycle or refresh event that names its user: dispatched for every
/// session of a server context or the session store (`signedIn`, `signedOut`, `sessionExpired`,
/// `userDeleted`), and for every session, the process-wide one included, by `tokenRefreshed` and
/// `tokenRefreshFailed`.
///
/// The process-wide session's lifecycle events keep amplify-swift's data (``SignedInUser`` for
/// `signedIn`, the username for the others), so code written for it is unchanged.
public struct AuthUserEvent: Sendable, Equatable, CustomStringConvertible {
    /// Which kind of session the event is about.
    public enum Scope: String, Sendable, Equatable {
        /// The process-wide session (`Amplify.Auth` outside any context).
        case processWide
        /// A context made from a request's tokens or cookies.
        case request
        /// A session the server holds (``AuthSessionStore``).
        case held
    }

    /// The name the user signs in with.
    public let username: String
    /// The user's stable id (`sub`); empty when it is not known.
    public let sub: String
    /// Which kind of session.
    public let scope: Scope
    /// The pool (tenant) the session belongs to (``AuthTenant/id``).
    public let tenant: String
    /// Why a refresh failed (`tokenRefreshFailed` only).
    public let error: AuthError?

    /// An event's data.
    public init(username: String, sub: String, scope: Scope, tenant: String, error: AuthError? = nil) {
        self.username = username
        self.sub = sub
        self.scope = scope
        self.tenant = tenant
        self.error = error
    }

    /// "alice (sub …, held session)".
    public var description: String { "\(username) (sub \(sub), \(scope) session)" }

    /// Equal when they name the same user, scope and tenant and both have an error or neither.
    public static func == (lhs: AuthUserEvent, rhs: AuthUserEvent) -> Bool {
        lhs.username == rhs.username && lhs.sub == rhs.sub && lhs.scope == rhs.scope && lhs.tenant == rhs.tenant
            && (lhs.error == nil) == (rhs.error == nil)
    }
}
