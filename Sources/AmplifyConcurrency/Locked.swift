#if canImport(Glibc)
    import Glibc
#endif

/// A value guarded by a `pthread_mutex_t`.
///
/// The package uses it instead of the standard library's `Mutex` because ThreadSanitizer
/// understands pthread mutexes: `Mutex`'s contended path runs in an uninstrumented library, so
/// TSan reports the accesses it guards as races. The mutex lives at a stable heap address for
/// the lock's whole life. Safe from any thread; not reentrant.
///
/// Guard a value with a size: with an empty one (`Locked(())`), ThreadSanitizer reports the
/// locked accesses of two threads as a Swift access race (seen in test runs under load); a
/// counter of what the lock serialized costs nothing and is reported correctly.
public final class Locked<Value> {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // Unchecked exclusivity: the mutex already makes every access exclusive.
    @usableFromInline @exclusivity(unchecked) var guarded: Value

    /// A lock guarding `value`.
    public init(_ value: Value) {
        guarded = value
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock, and returns what it returns.
    /// - Throws: what `body` throws (the lock is released either way).
    @inlinable @inline(__always)
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&guarded)
    }
}

// @unchecked Sendable: every access to `value` happens inside `withLock`, under the mutex.
extension Locked: @unchecked Sendable where Value: Sendable {}

extension Locked where Value: Sendable {
    /// A copy of the value, read under the lock.
    public var value: Value { withLock { $0 } }
}
