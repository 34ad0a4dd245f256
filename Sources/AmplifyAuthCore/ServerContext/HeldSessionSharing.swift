import Amplify

/// Where an ``AuthSessionStore`` shares its held sessions with the other instances of a fleet
/// (AmplifyFleet's Redis store): every instance holds every session, exactly one refreshes each,
/// and an ending on one is an ending on all.
package protocol HeldSessionSharing: Sendable {
    /// Loads the sessions the fleet holds and starts reporting what other instances change.
    /// `changes` is called in order, one at a time, on a task of the sharing's own.
    /// - Throws: the shared store's error (unreachable, unreadable).
    func start(changes: @escaping @Sendable (HeldSessionChange) async -> Void) async throws -> [StoredSession]

    /// A sign-in on this instance: saved for the fleet, and the others told.
    /// - Throws: the shared store's error (the sign-in then fails).
    func began(_ session: StoredSession) async throws

    /// Refreshes `current` as the one instance allowed to: under the session's lease, unless
    /// another instance has refreshed it already (then its tokens are adopted) or is refreshing it
    /// now (then this waits for its tokens). A refused refresh token is final only when the fleet's
    /// record still holds it.
    /// - Throws: `exchange`'s error when the refresh was this instance's and failed, or the shared
    ///   store's error.
    func refresh(_ current: StoredSession, exchange: @escaping AuthSessionKeeper.Refresh) async throws -> SharedRefreshOutcome

    /// A held session ended on this instance (sign-out, deletion, expiry): forgotten by the fleet.
    func ended(_ session: StoredSession) async

    /// After the shared store came back (``HeldSessionChange/reconnected``): saves again the
    /// sessions it lost (a restart without persistence) from `held`, keeping whatever another
    /// instance wrote meanwhile, and returns what was missed while away (sessions begun or
    /// ended elsewhere).
    func resync(_ held: [StoredSession]) async -> [HeldSessionChange]

    /// Stops reporting changes; leases held are given up.
    func stop() async
}

/// What a shared refresh did (``HeldSessionSharing/refresh(_:exchange:)``).
package enum SharedRefreshOutcome: Sendable, Equatable {
    /// This instance refreshed the session and the fleet has the new tokens.
    case refreshed(StoredSession)
    /// Another instance refreshed it: these are its tokens (no event here, it dispatched one).
    case adopted(StoredSession)
    /// The session ended on another instance.
    case ended
}

/// What another instance of the fleet changed.
package enum HeldSessionChange: Sendable, Equatable {
    /// A user signed in there: hold the session too.
    case began(StoredSession)
    /// The user's session ended there: forget it, without events (that instance dispatched them).
    case ended(username: String)
    /// The shared store came back after a loss: what was missed must be read again.
    case reconnected
}
