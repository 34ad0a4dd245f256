import AmplifyConcurrency
import AmplifyCrypto
import Foundation

/// Tokens this process has verified, so that a browser sending the same cookie on every request
/// pays for one signature check, not one per request.
///
/// - **Keyed by a hash.** An entry is found by the SHA-256 of the access token (and of the ID
///   token, when the request sends one): 16 bytes of each, never the token itself, so the cache
///   holds no token and a forged token cannot hit another's entry.
/// - **Never stale.** A hit needs the same pool (``AuthTenant``), a time before the tokens'
///   `exp` (no grace: an expired token goes back to the verifier, which may refresh it), an age
///   under `maximumAge`, and no revocation since it was verified (the plugin's
///   ``RevocationCounter``): a sign-out, global sign-out, password reset or deleted user in this
///   process makes every older entry miss. `maximumAge` bounds how long a revocation made by
///   another process (another server sharing a local pool's file) goes unseen.
/// - **Bounded.** At most `capacity` entries in two generations: new entries go to the young one;
///   when it holds half the capacity the old one is dropped and the young one becomes old (a hit
///   in the old one moves the entry back). Each look-up and insert is O(1).
///
/// Safe from any thread (one lock around two dictionaries; hashing happens outside it).
public final class VerifiedTokenCache: Sendable {
    /// What a verification established about a request's tokens.
    public struct Entry: Sendable, Equatable {
        /// The user's name (the access token's `username`).
        public var username: String
        /// The user's id (`sub`).
        public var sub: String
        /// The user's groups (`cognito:groups`).
        public var groups: [String]
        /// The access token's scopes (`scope`, split at spaces).
        public var scopes: [String]
        /// When the earliest of the tokens expires (seconds since 1970).
        public var expiresAt: Double

        /// An entry.
        public init(username: String, sub: String, groups: [String], scopes: [String], expiresAt: Double) {
            self.username = username
            self.sub = sub
            self.groups = groups
            self.scopes = scopes
            self.expiresAt = expiresAt
        }
    }

    /// Where an entry is found: 16 bytes of the SHA-256 of each token.
    public struct Key: Hashable, Sendable {
        let access: (UInt64, UInt64)
        let id: (UInt64, UInt64)

        /// The key of an access token and, when the request sends one, its ID token.
        public init(accessToken: String, idToken: String?) {
            access = Digest.sha256Prefix128(accessToken)
            id = idToken.map(Digest.sha256Prefix128) ?? (0, 0)
        }

        /// Compares the four words.
        public static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.access == rhs.access && lhs.id == rhs.id
        }

        /// Feeds the first word only: it is already a uniform hash.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(access.0 ^ id.0)
        }
    }

    private struct Stored {
        var entry: Entry
        var tenant: AuthTenant
        var revocations: UInt64
        var verifiedAt: Double
    }

    private struct Generations {
        var young: [Key: Stored] = [:]
        var old: [Key: Stored] = [:]
        var hits = 0
        var misses = 0
    }

    private let state = Locked(Generations())
    /// The most entries held (both generations together).
    public let capacity: Int
    /// The longest an entry is used after its verification, in seconds.
    public let maximumAge: Double
    private let now: @Sendable () -> Double

    /// A cache of at most `capacity` entries (at least 2), each used for at most `maximumAge`
    /// seconds (default 60). - Parameter now: the clock in seconds since 1970 (tests pass their own).
    public init(capacity: Int = 10_000, maximumAge: TimeInterval = 60, now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.capacity = max(2, capacity)
        self.maximumAge = maximumAge.isFinite ? max(0, maximumAge) : 0
        self.now = now
    }

    /// The entry for `key` if it was verified for `tenant`, has not expired, is younger than
    /// `maximumAge`, and no revocation happened since (`revocations` is the plugin's count now).
    public func lookup(_ key: Key, tenant: AuthTenant, revocations: UInt64) -> Entry? {
        let time = now()
        return state.withLock { state in
            if let stored = state.young[key] {
                guard Self.isLive(stored, tenant: tenant, revocations: revocations, time: time, maximumAge: maximumAge) else {
                    state.young[key] = nil
                    state.misses += 1
                    return nil
                }
                state.hits += 1
                return stored.entry
            }
            guard let stored = state.old.removeValue(forKey: key) else {
                state.misses += 1
                return nil
            }
            guard Self.isLive(stored, tenant: tenant, revocations: revocations, time: time, maximumAge: maximumAge) else {
                state.misses += 1
                return nil
            }
            state.hits += 1
            insert(stored, for: key, into: &state)
            return stored.entry
        }
    }

    /// Keeps `entry` for `key`. `revocations` must be the plugin's count read **before** the
    /// verification began, so a revocation during it makes the entry miss.
    public func insert(_ entry: Entry, for key: Key, tenant: AuthTenant, revocations: UInt64) {
        let stored = Stored(entry: entry, tenant: tenant, revocations: revocations, verifiedAt: now())
        state.withLock { state in insert(stored, for: key, into: &state) }
    }

    /// Forgets every entry.
    public func removeAll() {
        state.withLock { state in
            state.young = [:]
            state.old = [:]
        }
    }

    /// How many entries are held now (expired ones included until they are looked up or aged out).
    public var count: Int { state.withLock { $0.young.count + $0.old.count } }

    /// Look-ups that found a live entry, and those that did not, since the cache was made.
    public var statistics: (hits: Int, misses: Int) { state.withLock { ($0.hits, $0.misses) } }

    private func insert(_ stored: Stored, for key: Key, into state: inout Generations) {
        if state.young[key] == nil, state.young.count >= capacity / 2 {
            state.old = state.young
            state.young = [:]
            state.young.reserveCapacity(capacity / 2)
        }
        state.young[key] = stored
    }

    private static func isLive(_ stored: Stored, tenant: AuthTenant, revocations: UInt64, time: Double, maximumAge: Double) -> Bool {
        stored.revocations == revocations && time < stored.entry.expiresAt && time - stored.verifiedAt < maximumAge && stored.tenant == tenant
    }
}
