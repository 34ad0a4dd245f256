/// The user pool (and app client) a server context belongs to: every context is bound to one,
/// and a call on a plugin of another pool inside it is refused, so a request of one tenant can
/// never act in another.
public struct AuthTenant: Sendable, Hashable, CustomStringConvertible {
    /// The pool, unique in the process: a Cognito user pool id, or a local pool's folder.
    public let pool: String
    /// The app client the pool's tokens are issued to (the middle of Amplify JS's cookie names).
    public let clientId: String
    /// The pool's token issuer (`iss`).
    public let issuer: String

    /// A tenant.
    public init(pool: String, clientId: String, issuer: String) {
        self.pool = pool
        self.clientId = clientId
        self.issuer = issuer
    }

    /// `"<pool> <clientId>"`: what events name as the tenant, and the key of its held sessions.
    public var id: String { "\(pool) \(clientId)" }

    /// The tenant's ``id``.
    public var description: String { id }
}
