import Amplify
import AmplifyConcurrency
import Foundation

/// The sessions and users whose tokens this process refuses before they expire: what a
/// sign-out the server handled ended. A Cognito access token stays valid by its signature until
/// its `exp` (an hour by default) even after `RevokeToken` or `GlobalSignOut`, so a server that
/// verifies tokens itself must remember what it signed out.
///
/// - A **session** is named by its tokens' `origin_jti` (Cognito's id of the authentication
///   event, the same for every access and ID token issued with one refresh token), else their
///   `jti`; it is refused until the token's `exp`.
/// - A **user** (global sign-out, deletion) is named by `sub`: every token of the user issued
///   (`iat`) before that second is refused for the longest lifetime an access token can
///   have (24 hours, Cognito's maximum).
///
/// Entries are dropped when they can no longer match a valid token. Checking takes one lock and
/// two dictionary look-ups; safe from any thread.
public final class RevokedSessions: Sendable {
    /// How long a user's revocation is kept: Cognito's longest access-token lifetime, and a
    /// minute for clocks.
    public static let userRevocationLifetime: TimeInterval = 24 * 3600 + 60

    private struct State {
        /// Session id → when its last token expires.
        var sessions: [String: Double] = [:]
        /// `sub` → (tokens issued at or before this time are refused, until when).
        var users: [String: (before: Double, until: Double)] = [:]
        /// No pruning before this time.
        var nextPrune: Double = 0
    }

    private let state = Locked(State())
    private let observers = Locked<[@Sendable (SessionRevocation) -> Void]>([])
    private let now: @Sendable () -> Date
    /// Bumped by every revocation (``VerifiedTokenCache`` entries from before it are verified again).
    public let revocations = RevocationCounter()

    /// An empty list. - Parameter now: the clock (tests pass their own).
    public init(now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
    }

    /// How many sessions and users are refused now.
    public var count: Int { state.withLock { $0.sessions.count + $0.users.count } }

    /// Refuses the session `claims` belong to (its `origin_jti`, else `jti`) until their `exp`.
    /// Claims with neither id nor `exp` change nothing.
    public func revokeSession(claims: JSONValue) {
        guard let id = Self.sessionId(claims), let expiry = claims["exp"]?.doubleValue else { return }
        let current = now().timeIntervalSince1970
        guard expiry > current else { return }
        record(.session(id: id, until: expiry + 60))
        revocations.bump()
        notify(.session(id: id, until: expiry + 60))
    }

    /// Refuses every token of `sub` issued until now.
    public func revokeUser(sub: String) {
        let current = now().timeIntervalSince1970
        record(.user(sub: sub, before: current))
        revocations.bump()
        notify(.user(sub: sub, before: current))
    }

    /// Records a revocation made elsewhere (another instance of a fleet), without telling the
    /// observers; one whose time has passed changes nothing.
    public func apply(_ revocation: SessionRevocation) {
        record(revocation)
        revocations.bumpFromElsewhere()
    }

    /// Writes `revocation` into the list.
    private func record(_ revocation: SessionRevocation) {
        let current = now().timeIntervalSince1970
        switch revocation {
        case .poolChanged:
            break
        case .session(let id, let until):
            guard until > current else { return }
            state.withLock { state in
                state.sessions[id] = max(state.sessions[id] ?? 0, until)
                prune(&state, current)
            }
        case .user(let sub, let before):
            guard before + Self.userRevocationLifetime > current else { return }
            state.withLock { state in
                let earlier = state.users[sub]?.before ?? -Double.infinity
                state.users[sub] = (before: max(before, earlier), until: max(before, earlier) + Self.userRevocationLifetime)
                prune(&state, current)
            }
        }
    }

    /// Calls `observer` with every revocation made here (not those ``apply(_:)`` records), on the
    /// thread that made it, after it took effect.
    public func observe(_ observer: @escaping @Sendable (SessionRevocation) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    private func notify(_ revocation: SessionRevocation) {
        for observer in observers.withLock({ $0 }) { observer(revocation) }
    }

    /// Whether a token with `claims` belongs to a revoked session or user.
    public func isRevoked(claims: JSONValue) -> Bool {
        let id = Self.sessionId(claims)
        let sub = claims["sub"]?.stringValue
        let issued = claims["iat"]?.doubleValue
        return state.withLock { state in
            if let id, state.sessions[id] != nil { return true }
            // Whole seconds (`iat` is): a token issued in the second of the sign-out is another
            // sign-in's, made just after it.
            if let sub, let user = state.users[sub] { return (issued ?? 0) < user.before.rounded(.down) }
            return false
        }
    }

    private static func sessionId(_ claims: JSONValue) -> String? {
        claims["origin_jti"]?.stringValue.map { "o:" + $0 } ?? claims["jti"]?.stringValue.map { "j:" + $0 }
    }

    /// Drops what has expired, at most once a minute.
    private func prune(_ state: inout State, _ current: Double) {
        guard current >= state.nextPrune else { return }
        state.nextPrune = current + 60
        state.sessions = state.sessions.filter { $0.value > current }
        state.users = state.users.filter { $0.value.until > current }
    }
}

/// One entry of a ``RevokedSessions`` list, as instances of a fleet share it.
public enum SessionRevocation: Sendable, Equatable {
    /// A session (its tokens' `origin_jti`, else `jti`, with its prefix) refused until `until`
    /// (seconds since 1970).
    case session(id: String, until: Double)
    /// Every token of `sub` issued before `before` (seconds since 1970).
    case user(sub: String, before: Double)
    /// The pool itself recorded a revocation that every instance reads from it (the local pool's
    /// shared files): tokens verified before are verified again.
    case poolChanged
}
