import Synchronization

/// A count of the revocations a pool's plugin has seen in this process (a sign-out, a global
/// sign-out, a password reset, a deleted user), read by ``VerifiedTokenCache`` on every hit: an
/// entry verified before the latest revocation is verified again, so a cached token is never
/// accepted after its session ended in this process.
///
/// Read and bumped from any thread (an atomic).
public final class RevocationCounter: Sendable {
    private let value = Atomic<UInt64>(0)
    private let observers = Mutex<[@Sendable () -> Void]>([])

    /// A counter at zero.
    public init() {}

    /// The revocations seen so far.
    public var current: UInt64 { value.load(ordering: .acquiring) }

    /// Records a revocation. Call it after the revocation takes effect (the row committed, the
    /// deny list written), so a verification that started before it cannot be cached as after it.
    public func bump() {
        value.add(1, ordering: .releasing)
        for observer in observers.withLock({ $0 }) { observer() }
    }

    /// Records a revocation made elsewhere (another instance of a fleet) without telling the
    /// observers.
    public func bumpFromElsewhere() {
        value.add(1, ordering: .releasing)
    }

    /// Calls `observer` after each ``bump()`` (on the thread that bumped).
    public func observe(_ observer: @escaping @Sendable () -> Void) {
        observers.withLock { $0.append(observer) }
    }
}
