import Foundation
import Synchronization

/// A counter closures can share (an `Atomic` cannot be captured by an escaping closure).
public final class Counter: Sendable {
    private let storage = Atomic<Int>(0)

    /// A counter at zero.
    public init() {}

    /// The current count.
    public var value: Int { storage.load(ordering: .acquiring) }

    /// Adds `amount`.
    public func increment(by amount: Int = 1) { storage.wrappingAdd(amount, ordering: .acquiringAndReleasing) }

    /// Returns the value and sets it to zero.
    public func take() -> Int { storage.exchange(0, ordering: .acquiringAndReleasing) }
}

/// A Boolean closures can share.
public final class Flag: Sendable {
    private let storage = Atomic<Bool>(false)

    /// A flag that is down.
    public init() {}

    /// Whether the flag is up.
    public var value: Bool { storage.load(ordering: .acquiring) }

    /// Raises (or lowers) the flag.
    public func set(_ value: Bool = true) { storage.store(value, ordering: .releasing) }

    /// Sets the flag with a relaxed store (to test publication to the loop).
    public func setRelaxed() { storage.store(true, ordering: .relaxed) }

    /// Reads the flag with a relaxed load.
    public var relaxedValue: Bool { storage.load(ordering: .relaxed) }
}

/// Runs `body(index)` on `count` new threads at once and returns when all of them have finished:
/// for tests and benchmarks that need real concurrent producers.
public func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread {
            body(index)
            group.leave()
        }.start()
    }
    group.wait()
}

/// Whether ThreadSanitizer or AddressSanitizer is in this process (memory bounds mean nothing
/// under them).
public let runningUnderSanitizer =
    dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil
    || dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil

/// The process's resident memory in bytes (from /proc/self/statm), for checks that a transfer
/// or a queue stays within a memory bound.
public func residentMemoryBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
