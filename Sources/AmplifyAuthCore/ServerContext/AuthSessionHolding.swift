import Amplify

/// What an Auth engine needs of the session a call acts on: the process-wide
/// ``AuthSessionKeeper`` outside any context, a context's ``AuthContextSession`` inside one.
/// Engines ask ``AuthServerContext/sessions(for:processWide:)`` at the start of each call.
public protocol AuthSessionHolding: Actor {
    /// The signed-in session, if any (its access token may have expired).
    var current: StoredSession? { get }
    /// Whether the last session ended by expiring.
    var hasExpired: Bool { get }
    /// Makes `new` the signed-in session if nobody holds this one.
    /// - Throws: `AuthError.invalidState(_:_:_:)` when someone does, or a store's error.
    func begin(_ new: StoredSession) async throws
    /// The session with a usable access token, refreshed when expired (or always, with `forceRefresh`).
    /// - Throws: `AuthError.signedOut(_:_:_:)`, `AuthError.sessionExpired(_:_:_:)`, or the refresh's error.
    func validSession(forceRefresh: Bool) async throws -> StoredSession
    /// Refreshes the tokens now (concurrent callers share one exchange).
    /// - Throws: as ``validSession(forceRefresh:)``.
    @discardableResult
    func refresh() async throws -> StoredSession
    /// Ends the session (sign-out, deletion): no event, the timer (if any) stops, a store forgets it.
    func end() async
}

extension AuthSessionHolding {
    /// The session with a usable access token, refreshed only when expired.
    /// - Throws: as ``validSession(forceRefresh:)``.
    public func validSession() async throws -> StoredSession {
        try await validSession(forceRefresh: false)
    }
}

extension AuthSessionKeeper: AuthSessionHolding {}
