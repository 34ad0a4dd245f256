import Amplify
import AmplifyEventLoop

/// Where a running transfer checks, between chunks, whether it was paused or cancelled: a
/// paused transfer waits at the gate until it is resumed. Safe from any thread.
final class TransferGate: Sendable {
    private struct State {
        var paused = false
        var cancelled = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Locked(State())

    func pause() { state.withLock { $0.paused = true } }

    func resume() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.paused = false
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func cancel() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.cancelled = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns when the transfer may go on; waits while it is paused.
    /// - Throws: ``StorageError/cancelled(_:_:_:)`` once it was cancelled.
    func check() async throws {
        await withCheckedContinuation { continuation in
            let goOn = state.withLock { state -> Bool in
                guard state.paused, !state.cancelled else { return true }
                state.waiter = continuation
                return false
            }
            if goOn { continuation.resume() }
        }
        if state.withLock({ $0.cancelled }) {
            throw StorageError.cancelled("The transfer was cancelled.", "Start it again if you still need it.")
        }
    }

    /// Hooks for a ``StorageTransferTask`` driving this gate.
    func hooks<Success: Sendable>() -> StorageTransferTask<Success>.Hooks {
        StorageTransferTask<Success>.Hooks(cancel: cancel, pause: pause, resume: resume)
    }
}
