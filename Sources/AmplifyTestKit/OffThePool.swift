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
