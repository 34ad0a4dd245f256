import Foundation

/// Sign-ins waiting for `confirmSignIn`, one per session holder (the process-wide keeper, or a
/// server context's session), so that a `confirmSignIn` in one context can never answer the
/// challenge another started. An entry lapses after ``lifetime`` seconds, and with its holder (a
/// finished request's session): it is held weakly and never matches again once gone.
///
/// A value type for an actor's stored property; the actor serialises every use.
public struct PendingSignIns<Challenge: Sendable>: Sendable {
    private struct Entry: Sendable {
        weak var holder: (any AuthSessionHolding)?
        let challenge: Challenge
        let startedAt: Date
    }

    private var entries: [ObjectIdentifier: Entry] = [:]
    /// How long a challenge stays answerable, in seconds.
    public let lifetime: TimeInterval

    /// An empty store whose challenges lapse after `lifetime` seconds.
    public init(lifetime: TimeInterval) {
        self.lifetime = lifetime
    }

    /// The challenge `holder`'s sign-in is waiting on, if it has one that has not lapsed.
    public func challenge(for holder: any AuthSessionHolding, now: Date = Date()) -> Challenge? {
        guard let entry = entries[ObjectIdentifier(holder)], entry.holder === holder,
            now.timeIntervalSince(entry.startedAt) < lifetime
        else { return nil }
        return entry.challenge
    }

    /// Makes `challenge` the one `holder` waits on (`nil`: none), dropping every lapsed entry.
    public mutating func set(_ challenge: Challenge?, for holder: any AuthSessionHolding, now: Date = Date()) {
        entries = entries.filter { $0.value.holder != nil && now.timeIntervalSince($0.value.startedAt) < lifetime }
        entries[ObjectIdentifier(holder)] = challenge.map { Entry(holder: holder, challenge: $0, startedAt: now) }
    }
}
