import Foundation

/// Runs `body`, which blocks (a child's output read to its end, a process waited for), on a new
/// thread and returns its result: Swift's cooperative pool has one thread per core, and a test
/// that blocks one of them stalls every task of the run that waits for a thread.
/// - Throws: what `body` throws.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

extension Process {
    /// Waits for the process to end without holding a thread: `waitUntilExit()` blocks its
    /// caller, and a test that blocks one of the pool's few threads stalls the others.
    /// Afterwards `terminationStatus` is valid.
    public func exited() async {
        while isRunning {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// Checks `condition` every 20 ms until it holds or `timeout` has passed, sleeping between checks
/// (no thread is held). Generous timeouts suit a loaded two-core machine: the wait ends as soon
/// as the condition holds.
/// - Returns: whether the condition held in time.
@discardableResult
public func eventually(within timeout: Duration = .seconds(120), _ condition: () throws -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if (try? condition()) == true { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return (try? condition()) == true
}
