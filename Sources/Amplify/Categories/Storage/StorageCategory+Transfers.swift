extension StorageCategory {
    /// How many transfers (uploads and downloads of any Storage plugin) are under way: started,
    /// and not finished; for the package's plugins, until their work has ended, temporary files
    /// removed.
    public var transfersInProgress: Int { StorageTransferTracker.shared.count }

    /// Waits until every transfer under way has ended, or `timeout` has passed (`nil`: no
    /// limit). Returns whether none is left. Transfers started meanwhile are waited for too.
    public func waitForTransfers(timeout: Duration?) async -> Bool {
        await StorageTransferTracker.shared.waitUntilIdle(timeout: timeout)
    }

    /// Cancels every transfer under way (each task's `value` throws
    /// ``StorageError/cancelled(_:_:_:)``) and waits up to `timeout` for their work to unwind.
    /// Returns whether none is left.
    @discardableResult
    public func cancelTransfers(waiting timeout: Duration? = .seconds(10)) async -> Bool {
        StorageTransferTracker.shared.cancelAll()
        return await StorageTransferTracker.shared.waitUntilIdle(timeout: timeout)
    }
}
