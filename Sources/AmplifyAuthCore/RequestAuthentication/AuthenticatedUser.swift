import Amplify
import Foundation

/// The user a request was authenticated as: what the HTTP-server integrations hand a route
/// (Hummingbird's `context.identity`, Vapor's `req.auth`).
///
/// It holds the verified facts of the request's access token; ``claims`` reads the token's other
/// claims. Its description names the user, never the token.
public struct AuthenticatedUser: Sendable, Equatable, CustomStringConvertible {
    /// The user's name (Cognito's `username` claim; for a federated user, `Provider_id`).
    public let username: String
    /// The user's stable id (`sub`).
    public let sub: String
    /// The groups the user is in (`cognito:groups`), as the token lists them.
    public let groups: [String]
    /// The access token's scopes (`scope`, split at spaces).
    public let scopes: [String]
    /// The pool (and app client) the token belongs to.
    public let tenant: AuthTenant
    /// When the access token expires.
    public let expiresAt: Date
    /// The verified access token (not in the description; ``claims`` reads it).
    let accessToken: String

    /// A user from verified facts: `accessToken` must be the token they were verified from. The
    /// middleware makes these; a route's unit test may make one to stand for a request's user.
    public init(entry: VerifiedTokenCache.Entry, tenant: AuthTenant, accessToken: String) {
        username = entry.username
        sub = entry.sub
        groups = entry.groups
        scopes = entry.scopes
        self.tenant = tenant
        expiresAt = Date(timeIntervalSince1970: entry.expiresAt)
        self.accessToken = accessToken
    }

    /// Whether the user is in `group` (exact, case-sensitive, as Cognito compares group names).
    public func isMember(of group: String) -> Bool { groups.contains(group) }

    /// Whether the access token grants `scope`.
    public func hasScope(_ scope: String) -> Bool { scopes.contains(scope) }

    /// The access token's claims as JSON (decoded on each call: the token was verified, so they
    /// are the pool's). Custom claims a pre-token-generation trigger added are here.
    public var claims: JSONValue { (try? JSONWebToken(parsing: accessToken))?.claims ?? [:] }

    /// `username (sub) in pool`: never the token.
    public var description: String { "\(PrintableText(username, limit: 80)) (\(sub)) of \(tenant)" }

    /// What a verification established, read from a verified access token's claims and the
    /// earliest expiry among the request's tokens.
    static func entry(accessClaims claims: JSONValue, username: String, sub: String, expiresAt: Double) -> VerifiedTokenCache.Entry {
        let groups = claims["cognito:groups"]?.asArray?.compactMap(\.stringValue) ?? []
        let scopes = claims["scope"]?.stringValue?.split(separator: " ").map(String.init) ?? []
        return VerifiedTokenCache.Entry(username: username, sub: sub, groups: groups, scopes: scopes, expiresAt: expiresAt)
    }
}
