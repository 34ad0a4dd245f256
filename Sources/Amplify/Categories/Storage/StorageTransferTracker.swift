import AmplifyConcurrency

/// The transfers under way in the process, so a shutdown can let them finish or cancel them
/// (``StorageCategory/waitForTransfers(timeout:)``, ``StorageCategory/cancelTransfers(waiting:)``).
/// A transfer counts from the moment its task is made until it finishes, or, for one run by
/// AmplifyStorageCore's `StoragePluginSupport.transfer(_:_:)`, until the plugin's work has ended (its temporary
/// files removed).
package final class StorageTransferTracker: Sendable {
    /// A transfer's entry.
    package struct ID: Hashable, Sendable {
        fileprivate let value: Int
    }

    private struct State {
        var next = 0
        var cancels: [Int: @Sendable () -> Void] = [:]
    }

    package static let shared = StorageTransferTracker()

    private let state = Locked(State())

    /// Counts a transfer as under way; `cancel` stops it.
    package func begin(cancel: @escaping @Sendable () -> Void) -> ID {
        state.withLock { state in
            state.next += 1
            state.cancels[state.next] = cancel
            return ID(value: state.next)
        }
    }

    /// The transfer has ended.
    package func end(_ id: ID) {
        _ = state.withLock { $0.cancels.removeValue(forKey: id.value) }
    }

    /// How many transfers are under way.
    var count: Int { state.withLock { $0.cancels.count } }

    /// Cancels every transfer under way (each ends when its work has unwound).
    func cancelAll() {
        let cancels = state.withLock { Array($0.cancels.values) }
        for cancel in cancels { cancel() }
    }

    /// Waits until no transfer is under way, or `timeout` passes (`nil`: no limit); returns
    /// whether none is.
    func waitUntilIdle(timeout: Duration?) async -> Bool {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while count > 0 {
            if let deadline, ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}
