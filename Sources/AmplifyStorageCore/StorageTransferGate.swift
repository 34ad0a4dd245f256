import Amplify
import AmplifyConcurrency

/// For Storage plugins: where a running transfer checks, between chunks or parts, whether it was
/// paused or cancelled. A paused transfer waits at ``check()`` until it is resumed; give
/// `hooks()` to `StorageTransferTask/make(hooks:)` so the task's `pause`, `resume` and
/// `cancel` drive the gate. Safe from any thread.
public final class StorageTransferGate: Sendable {
    private struct State {
        var paused = false
        var cancelled = false
        /// Everyone waiting at ``check()`` (a multipart upload has several parts waiting at once).
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    /// A gate that is open.
    public init() {}

    /// Makes ``check()`` wait.
    public func pause() { state.withLock { $0.paused = true } }

    /// Lets ``check()`` go on.
    public func resume() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.paused = false
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    /// Makes ``check()`` throw from now on.
    public func cancel() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.cancelled = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    /// Returns when the transfer may go on; waits while it is paused.
    /// - Throws: `StorageError.cancelled(_:_:_:)` once it was cancelled.
    public func check() async throws {
        await withCheckedContinuation { continuation in
            let goOn = state.withLock { state -> Bool in
                guard state.paused, !state.cancelled else { return true }
                state.waiters.append(continuation)
                return false
            }
            if goOn { continuation.resume() }
        }
        if state.withLock({ $0.cancelled }) {
            throw StorageError.cancelled("The transfer was cancelled.", "Start it again if you still need it.")
        }
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Hooks for a `StorageTransferTask` driving this gate; `onCancel` runs after the gate is
    /// cancelled (to stop a request in flight).
    public func hooks<Success: Sendable>(onCancel: @escaping @Sendable () -> Void = {}) -> StorageTransferTask<Success>.Hooks {
        StorageTransferTask<Success>.Hooks(
            cancel: { [self] in
                cancel()
                onCancel()
            }, pause: pause, resume: resume)
    }
}
