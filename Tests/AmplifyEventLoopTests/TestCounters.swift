import Synchronization
import Synchronization

/// A counter closures can share (an `Atomic` cannot be captured by an escaping closure).
final class Counter: Sendable {
    private let storage = Atomic<Int>(0)

    var value: Int { storage.load(ordering: .acquiring) }

    func increment(by amount: Int = 1) { storage.wrappingAdd(amount, ordering: .acquiringAndReleasing) }

    /// Returns the value and sets it to zero.
    func take() -> Int { storage.exchange(0, ordering: .acquiringAndReleasing) }
}

/// A Boolean closures can share.
final class Flag: Sendable {
    private let storage = Atomic<Bool>(false)

    var value: Bool { storage.load(ordering: .acquiring) }

    func set(_ value: Bool = true) { storage.store(value, ordering: .releasing) }

    /// Sets the flag with a relaxed store (to test publication to the loop).
    func setRelaxed() { storage.store(true, ordering: .relaxed) }

    /// Reads the flag with a relaxed load.
    var relaxedValue: Bool { storage.load(ordering: .relaxed) }
}

/// A value closures can share under a lock.
final class Locked<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) { storage = Mutex(value) }

    func withLock<R>(_ body: (inout Value) -> R) -> R { storage.withLock { body(&$0) } }

    var value: Value { storage.withLock { $0 } }
}
