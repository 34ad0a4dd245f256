import Amplify
import Foundation

/// What an Auth engine needs of the session a call acts on: the process-wide
/// ``AuthSessionKeeper`` outside any context, a context's ``AuthContextSession`` inside one.
/// Engines ask ``AuthServerContext/current(for:)`` at the start of each call.
public protocol AuthSessionHolding: Actor {
    /// The signed-in session, if any (its access token may have expired).
    var current: StoredSession? { get }
    /// Whether the last session ended by expiring.
    var hasExpired: Bool { get }
    /// Makes `new` the signed-in session if nobody holds this one.
    /// - Throws: `AuthError.invalidState(_:_:_:)` when someone does, or a store's error.
    func begin(_ new: StoredSession) async throws
    /// Refreshes the tokens now (concurrent callers share one exchange).
    /// - Throws: `AuthError.signedOut(_:_:_:)` when nobody is signed in, `AuthError.sessionExpired(_:_:_:)`
    ///   when the token is refused, or the exchange's error.
    @discardableResult
    func refresh() async throws -> StoredSession
    /// Ends the session (sign-out, deletion): no event, the timer (if any) stops, a store forgets it.
    func end() async
}

extension AuthSessionHolding {
    /// The session with a usable access token: refreshed when it has expired (or always, with
    /// `forceRefresh`).
    /// - Throws: `AuthError.signedOut(_:_:_:)` when nobody is signed in,
    ///   `AuthError.sessionExpired(_:_:_:)` when the session expired (now or before), or the
    ///   refresh's error when the service could not be asked.
    public func validSession(forceRefresh: Bool = false) async throws -> StoredSession {
        if !forceRefresh, let current, current.accessTokenExpiresAt > Date() { return current }
        // With nobody signed in, refresh() throws signedOut (or sessionExpired after an expiry).
        return try await refresh()
    }
}

extension AuthSessionKeeper: AuthSessionHolding {}
