import AmplifyConcurrency
import CoreMetrics
import Foundation

/// How far a transfer has got.
public struct StorageTransferProgress: Sendable, Equatable {
    /// Bytes transferred so far.
    public let completedBytes: Int64
    /// Bytes in all, when known.
    public let totalBytes: Int64?

    /// Progress of `completedBytes` out of `totalBytes`.
    public init(completedBytes: Int64, totalBytes: Int64?) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
    }

    /// From 0 to 1 (0 while the total is unknown; 1 for an empty transfer).
    public var fractionCompleted: Double {
        guard let totalBytes else { return 0 }
        guard totalBytes > 0 else { return 1 }
        return min(1, Double(completedBytes) / Double(totalBytes))
    }
}

/// Where a transfer stands.
public enum StorageTransferState: Sendable, Equatable {
    /// Running, paused, or finished in one of three ways.
    case inProgress, paused, completed, failed, cancelled
}

/// An upload or download under way: await ``value`` for the result, iterate ``progress`` for
/// updates, and ``cancel()``, ``pause()`` or ``resume()`` it from any thread.
///
/// A task made with a Hub event name counts its bytes and its outcome in the storage metrics
/// (``AmplifyMetrics/storageBytes``, ``AmplifyMetrics/storageTransfers``) when a metrics backend
/// is bootstrapped; every task is under way for
/// ``StorageCategory/transfersInProgress`` until it finishes.
public final class StorageTransferTask<Success: Sendable>: Sendable {
    /// The plugin's side of a task: it reports progress and the outcome, and is told about
    /// cancel, pause and resume. Its hooks run on the thread that called the task's method.
    public struct Controller: Sendable {
        let task: StorageTransferTask<Success>
        let hubEventName: String?
        let hub: HubReporter

        /// Reports progress (ignored once the task has finished): to the task's `progress`
        /// sequence and, when the task was made with a Hub event name, on the Hub as
        /// `Storage.progress` (context: that event name, data: the progress).
        public func report(_ progress: StorageTransferProgress) {
            guard task.report(progress) else { return }
            task.count(progress)
            guard let hubEventName else { return }
            let payload = HubPayload(eventName: HubPayload.EventName.Storage.progress, context: hubEventName, data: progress)
            hub.dispatch(to: .storage, payload: payload)
        }
        /// Finishes the task with `value`.
        public func succeed(_ value: Success) { task.finish(.success(value), state: .completed) }
        /// Finishes the task with `error` (a cancelled task stays cancelled).
        public func fail(_ error: any Error) { task.finish(.failure(error), state: .failed) }
        /// Whether the caller cancelled the task.
        public var isCancelled: Bool { task.state == .cancelled }
    }

    /// What the plugin does when the caller cancels, pauses or resumes.
    public struct Hooks: Sendable {
        let cancel: @Sendable () -> Void
        let pause: (@Sendable () -> Void)?
        let resume: (@Sendable () -> Void)?

        /// Hooks; a task without `pause` and `resume` hooks ignores those calls.
        public init(
            cancel: @escaping @Sendable () -> Void = {}, pause: (@Sendable () -> Void)? = nil,
            resume: (@Sendable () -> Void)? = nil
        ) {
            self.cancel = cancel
            self.pause = pause
            self.resume = resume
        }
    }

    private struct State {
        var state: StorageTransferState = .inProgress
        var result: Result<Success, any Error>?
        var waiters: [CheckedContinuation<Result<Success, any Error>, Never>] = []
        /// The bytes already counted in the metrics.
        var countedBytes: Int64 = 0
        /// The task's entry among the transfers under way, while it counts as one.
        var tracking: StorageTransferTracker.ID?
    }

    private let shared = Locked(State())
    private let hooks: Hooks
    private let progressContinuation: AsyncStream<StorageTransferProgress>.Continuation
    private let metrics: StorageTransferMetrics?

    /// Progress updates, ending when the task finishes. Keeps the latest 64 updates for a slow
    /// reader.
    public let progress: AsyncStream<StorageTransferProgress>

    private init(hooks: Hooks, metrics: StorageTransferMetrics?) {
        self.hooks = hooks
        self.metrics = metrics
        (progress, progressContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    /// A new task and the controller its plugin drives it with; with `hubEventName`
    /// (`Storage.uploadData`, …) its progress also goes to `hub` (`Amplify.Hub` by default), and
    /// its bytes and outcome to `metricsFactory` (default: `MetricsSystem.factory`, looked at
    /// now; nothing with no backend).
    public static func make(
        hooks: Hooks = Hooks(), hubEventName: String? = nil, hub: (any HubCategoryBehavior)? = nil,
        metricsFactory: (any MetricsFactory)? = nil
    ) -> (task: StorageTransferTask<Success>, controller: Controller) {
        make(hooks: hooks, hubEventName: hubEventName, hub: hub, metricsFactory: metricsFactory, tracked: true)
    }

    /// ``make(hooks:hubEventName:hub:metricsFactory:)``; with `tracked: false` the caller counts
    /// the transfer as under way itself (AmplifyStorageCore's `StoragePluginSupport` does, until its work ends).
    package static func make(
        hooks: Hooks, hubEventName: String?, hub: (any HubCategoryBehavior)?, metricsFactory: (any MetricsFactory)?, tracked: Bool
    ) -> (task: StorageTransferTask<Success>, controller: Controller) {
        let metrics = hubEventName.flatMap { StorageTransferMetrics.make(event: $0, factory: metricsFactory) }
        let task = StorageTransferTask(hooks: hooks, metrics: metrics)
        if tracked {
            let id = StorageTransferTracker.shared.begin { task.cancel() }
            task.shared.withLock { $0.tracking = id }
        }
        return (task, Controller(task: task, hubEventName: hubEventName, hub: HubReporter(hub: hub)))
    }

    /// Where the transfer stands.
    public var state: StorageTransferState { shared.withLock { $0.state } }

    /// The result, once the transfer finishes.
    /// - Throws: the transfer's error, or ``StorageError/cancelled(_:_:_:)`` if it was cancelled.
    public var value: Success {
        get async throws {
            let result = await withCheckedContinuation { continuation in
                let ready = shared.withLock { state -> Result<Success, any Error>? in
                    if let result = state.result { return result }
                    state.waiters.append(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
            return try result.get()
        }
    }

    /// Cancels the transfer: ``value`` throws ``StorageError/cancelled(_:_:_:)``.
    public func cancel() {
        let cancelled = finish(
            .failure(StorageError.cancelled("The transfer was cancelled.", "Start it again if you still need it.")),
            state: .cancelled)
        if cancelled { hooks.cancel() }
    }

    /// Pauses the transfer, if the plugin supports it.
    public func pause() {
        guard let pause = hooks.pause else { return }
        let paused = shared.withLock { state -> Bool in
            guard state.state == .inProgress else { return false }
            state.state = .paused
            return true
        }
        if paused { pause() }
    }

    /// Resumes a paused transfer.
    public func resume() {
        guard let resume = hooks.resume else { return }
        let resumed = shared.withLock { state -> Bool in
            guard state.state == .paused else { return false }
            state.state = .inProgress
            return true
        }
        if resumed { resume() }
    }

    /// Passes `update` on unless the task has finished; returns whether it did.
    private func report(_ update: StorageTransferProgress) -> Bool {
        guard shared.withLock({ $0.result == nil }) else { return false }
        progressContinuation.yield(update)
        return true
    }

    /// Counts the bytes `update` adds to what was counted.
    private func count(_ update: StorageTransferProgress) {
        guard let metrics else { return }
        let added = shared.withLock { state -> Int64 in
            guard update.completedBytes > state.countedBytes else { return 0 }
            defer { state.countedBytes = update.completedBytes }
            return update.completedBytes - state.countedBytes
        }
        if added > 0 { metrics.bytes.increment(by: added) }
    }

    /// Records the outcome once; `true` if this call decided it.
    @discardableResult
    private func finish(_ result: Result<Success, any Error>, state newState: StorageTransferState) -> Bool {
        let finished = shared.withLock { state -> ([CheckedContinuation<Result<Success, any Error>, Never>], StorageTransferTracker.ID?)? in
            guard state.result == nil else { return nil }
            state.result = result
            state.state = newState
            defer {
                state.waiters.removeAll()
                state.tracking = nil
            }
            return (state.waiters, state.tracking)
        }
        guard let (waiters, tracking) = finished else { return false }
        progressContinuation.finish()
        metrics?.finished(newState)
        if let tracking { StorageTransferTracker.shared.end(tracking) }
        for waiter in waiters { waiter.resume(returning: result) }
        return true
    }
}

/// One transfer's metric objects: its direction's byte counter and outcome counters.
private struct StorageTransferMetrics: Sendable {
    let bytes: Counter
    let direction: String
    let factory: any MetricsFactory

    /// The metrics for a task reported under `event` (`Storage.uploadFile`: up,
    /// `Storage.downloadData`: down); `nil` for other events or with no backend.
    static func make(event: String, factory: (any MetricsFactory)?) -> StorageTransferMetrics? {
        let direction: String
        if event.hasPrefix("Storage.upload") {
            direction = "up"
        } else if event.hasPrefix("Storage.download") {
            direction = "down"
        } else {
            return nil
        }
        guard let factory = AmplifyMetrics.activeFactory(factory) else { return nil }
        return StorageTransferMetrics(
            bytes: Counter(label: AmplifyMetrics.storageBytes, dimensions: [("direction", direction)], factory: factory),
            direction: direction, factory: factory)
    }

    func finished(_ state: StorageTransferState) {
        let outcome =
            switch state {
            case .completed: "completed"
            case .cancelled: "cancelled"
            default: "failed"
            }
        Counter(label: AmplifyMetrics.storageTransfers, dimensions: [("direction", direction), ("outcome", outcome)], factory: factory).increment()
    }
}

/// The task `uploadData` returns; its value is the object's key.
public typealias StorageUploadDataTask = StorageTransferTask<String>
/// The task `uploadFile` returns; its value is the object's key.
public typealias StorageUploadFileTask = StorageTransferTask<String>
/// The task `downloadData` returns; its value is the object's bytes.
public typealias StorageDownloadDataTask = StorageTransferTask<Data>
/// The task `downloadFile` returns.
public typealias StorageDownloadFileTask = StorageTransferTask<Void>
