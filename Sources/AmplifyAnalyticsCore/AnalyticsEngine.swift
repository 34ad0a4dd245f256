import Amplify
import AmplifyConcurrency
import AmplifyEventLoop
import CoreMetrics
import Foundation

/// What every analytics plugin of this package does, whatever the target: global properties,
/// the identified user, enable / disable, recording into the ``DurableEventQueue`` in call order,
/// flushing batches through an ``AnalyticsEventSender``, auto-flush on a loop timer, and the Hub
/// events (`Analytics.record` once an event is stored, with the ``AnalyticsRecord`` or the error;
/// `Analytics.flushEvents` with a ``FlushSummary``; `Analytics.identifyUser` with the user id).
///
/// With a metrics backend bootstrapped it counts events queued, sent, failed, refused and set
/// aside, and records how many wait after each flush (the `amplify_analytics_*` metrics of
/// `AmplifyMetrics`, dimension `plugin`); each flush is logged at debug level (category
/// "Analytics").
public final class AnalyticsEngine: Sendable {
    private struct State {
        var enabled = true
        var globalProperties: AnalyticsProperties = [:]
        var userId: String?
        /// Records waiting to be stored, and beside each its caller's continuation (two arrays,
        /// so a round hands its records to the queue without copying them out of pairs).
        var inbox: [AnalyticsRecord] = []
        var waiting: [CheckedContinuation<Void, any Error>?] = []
        var draining = false
        /// Records taken into the inbox, and records whose storing has finished (stored or
        /// refused): a flush waits only for those taken before it started.
        var accepted: UInt64 = 0
        var settled: UInt64 = 0
        var flushing = false
        var closed = false
    }

    /// The durable queue.
    public let queue: DurableEventQueue
    private let sender: any AnalyticsEventSender
    private let batchSize: Int
    private let dispatch: @Sendable (String, any Sendable) -> Void
    private let state = Locked(State())
    private let timer = Locked<LoopTimer?>(nil)
    private let pluginKey: PluginKey
    /// The most records held in memory before they are stored: the queue's `maxQueuedEvents`.
    private let inboxLimit: UInt64
    private let metrics: AnalyticsMetrics?

    /// An engine storing into `queue` and delivering through `sender`, `batchSize` records per
    /// call, flushing every `autoFlushInterval` on `loop` (`nil` or zero: only on request).
    /// - Parameters:
    ///   - queue: the durable queue events are stored in before they are sent.
    ///   - sender: what delivers a batch (a file, a stream service).
    ///   - batchSize: how many records one call of `sender` gets.
    ///   - autoFlushInterval: how often the queue is flushed on its own (`nil` or zero: only on request).
    ///   - loop: the event loop the flush timer runs on.
    ///   - pluginKey: the plugin the engine works for, in logs and metrics.
    ///   - metricsFactory: where metrics go (default: `MetricsSystem.factory`, looked at once, now).
    ///   - dispatch: where Hub events go (`Amplify.Hub`'s `.analytics` channel by default).
    /// - Throws: `EventLoopError` if the timer cannot be scheduled.
    public init(
        queue: DurableEventQueue, sender: any AnalyticsEventSender, batchSize: Int = 100,
        autoFlushInterval: Duration? = nil, loop: EventLoop? = nil, pluginKey: PluginKey = "analytics",
        metricsFactory: (any MetricsFactory)? = nil, dispatch: (@Sendable (String, any Sendable) -> Void)? = nil
    ) throws {
        self.pluginKey = pluginKey
        metrics = AmplifyMetrics.activeFactory(metricsFactory).map { AnalyticsMetrics(pluginKey: pluginKey, factory: $0) }
        self.queue = queue
        inboxLimit = UInt64(max(1, queue.maxQueuedEvents))
        self.sender = sender
        self.batchSize = max(1, batchSize)
        self.dispatch = dispatch ?? { name, data in Amplify.Hub.dispatch(to: .analytics, payload: HubPayload(eventName: name, data: data)) }
        if let interval = autoFlushInterval, interval > .zero {
            let loop = try loop ?? Amplify.eventLoop()
            let made = try loop.scheduleTimer(after: interval, repeating: interval) { [weak self] in
                guard let self else { return }
                Task { await self.flush() }
            }
            timer.withLock { $0 = made }
        }
    }

    /// Hub events to `hub`'s `.analytics` channel, or `nil` (the default: `Amplify.Hub`) when
    /// there is no `hub`.
    public static func dispatcher(_ hub: (any HubCategoryBehavior)?) -> (@Sendable (String, any Sendable) -> Void)? {
        guard let hub else { return nil }
        return { name, data in hub.dispatch(to: .analytics, payload: HubPayload(eventName: name, data: data)) }
    }

    // MARK: Recording

    /// Records `event` (dropped while disabled). Returns at once; events are stored in call
    /// order, and `Analytics.record` reports each outcome. While the queue's `maxQueuedEvents`
    /// records already wait in memory to be stored (recording outruns the disk), the event is
    /// refused with ``AnalyticsQueueError/full(limit:)`` at once, so memory stays bounded.
    public func record(_ event: any AnalyticsEvent) {
        enqueue(event, continuation: nil)
    }

    /// Records `event` and returns once it is stored durably (it survives a crash from then on).
    /// - Throws: ``AnalyticsQueueError/full(limit:)`` (the queue, or the records waiting in memory
    ///   to be stored, are at `maxQueuedEvents`), a storage error, or
    ///   `AnalyticsError/configuration(_:_:_:)` when recording is disabled.
    public func recordDurably(_ event: any AnalyticsEvent) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            enqueue(event, continuation: continuation)
        }
    }

    /// What `enqueue` did with an event.
    private enum Admission {
        case disabled, full, queued, queuedStartingDrain
    }

    private func enqueue(_ event: any AnalyticsEvent, continuation: CheckedContinuation<Void, any Error>?) {
        let admission = state.withLock { state -> Admission in
            guard state.enabled, !state.closed else { return .disabled }
            // Records not yet stored are held in memory: at most the queue's own limit of them,
            // so recording faster than the disk stores cannot grow memory without bound (each
            // one beyond it would be refused by the queue anyway, unless a flush made room).
            guard state.accepted - state.settled < inboxLimit else { return .full }
            state.inbox.append(AnalyticsRecord(event: event, globalProperties: state.globalProperties, userId: state.userId))
            state.waiting.append(continuation)
            state.accepted += 1
            guard !state.draining else { return .queued }
            state.draining = true
            return .queuedStartingDrain
        }
        switch admission {
        case .disabled:
            metrics?.recordFailed.increment()
            continuation?.resume(
                throwing: AnalyticsError.configuration(
                    "Analytics is disabled (or reset); the event '\(event.name)' was not recorded.", "Call Amplify.Analytics.enable() first."))
        case .full:
            metrics?.recordFailed.increment()
            refuse(.full(limit: queue.maxQueuedEvents), continuation)
        case .queuedStartingDrain:
            Task { await drain() }
        case .queued:
            break
        }
    }

    /// Answers a refused record's caller and reports the refusal on the Hub.
    private func refuse(_ refusal: AnalyticsQueueError, _ continuation: CheckedContinuation<Void, any Error>?) {
        continuation?.resume(throwing: refusal)
        dispatch(HubPayload.EventName.Analytics.record, AnalyticsError.unknown("\(refusal)", refusal))
    }

    /// Records held in memory, taken but not yet stored or refused: never more than the queue's
    /// `maxQueuedEvents` (package: tests read it).
    package var heldRecords: Int {
        state.withLock { Int($0.accepted - $0.settled) }
    }

    /// The most records one transaction stores: a backlog is stored in transactions of this
    /// size, so each stays short and a flush's reads of the queue wait for at most one of them
    /// (one transaction of everything waiting grew with the backlog when recording outran it).
    static let maximumRound = 4096

    /// Stores what the inbox holds, in order, at most ``maximumRound`` records per transaction.
    private func drain() async {
        while true {
            let (taken, continuations) = state.withLock { state -> ([AnalyticsRecord], [CheckedContinuation<Void, any Error>?]) in
                if state.inbox.isEmpty { state.draining = false }
                var taken: [AnalyticsRecord] = []
                var continuations: [CheckedContinuation<Void, any Error>?] = []
                swap(&taken, &state.inbox)
                swap(&continuations, &state.waiting)
                return (taken, continuations)
            }
            if taken.isEmpty { return }
            for start in stride(from: 0, to: taken.count, by: Self.maximumRound) {
                let end = min(taken.count, start + Self.maximumRound)
                await store(Array(taken[start..<end]), continuations[start..<end])
            }
        }
    }

    /// Stores one round and answers its callers.
    private func store(_ round: [AnalyticsRecord], _ continuations: ArraySlice<CheckedContinuation<Void, any Error>?>) async {
        defer { state.withLock { $0.settled += UInt64(round.count) } }
        do {
            let refusals = try await queue.append(round)
            if let metrics {
                let refused = refusals.count { $0 != nil }
                if refused > 0 { metrics.recordFailed.increment(by: refused) }
                if round.count > refused { metrics.queued.increment(by: round.count - refused) }
            }
            for ((record, continuation), refusal) in zip(zip(round, continuations), refusals) {
                if let refusal {
                    refuse(refusal, continuation)
                } else {
                    continuation?.resume()
                    dispatch(HubPayload.EventName.Analytics.record, record)
                }
            }
        } catch {
            metrics?.recordFailed.increment(by: round.count)
            for continuation in continuations { continuation?.resume(throwing: error) }
            dispatch(
                HubPayload.EventName.Analytics.record,
                AnalyticsError.unknown("The analytics queue could not store \(round.count) event(s): \(error)", error))
        }
    }

    // MARK: Properties and users

    /// Associates later events with `userId`.
    public func identifyUser(_ userId: String) {
        state.withLock { $0.userId = userId }
        dispatch(HubPayload.EventName.Analytics.identifyUser, userId)
    }

    /// Adds properties to every later event (an event's own properties win).
    public func registerGlobalProperties(_ properties: AnalyticsProperties) {
        state.withLock { $0.globalProperties.merge(properties) { _, new in new } }
    }

    /// Removes global properties (all when `keys` is `nil`).
    public func unregisterGlobalProperties(_ keys: Set<String>?) {
        state.withLock { state in
            if let keys { keys.forEach { state.globalProperties.removeValue(forKey: $0) } } else { state.globalProperties.removeAll() }
        }
    }

    /// Starts recording again.
    public func enable() { state.withLock { $0.enabled = true } }

    /// Stops recording; later events are dropped until ``enable()``.
    public func disable() { state.withLock { $0.enabled = false } }

    /// Whether recording is on.
    public var isEnabled: Bool { state.withLock { $0.enabled } }

    // MARK: Flushing

    /// Delivers every record waiting when it starts (those recorded before the call included,
    /// once they are stored) once through the sender, in batches in recording order, and
    /// reports a ``FlushSummary`` on the Hub. Records arriving meanwhile wait for the next
    /// flush, so a flush finishes under sustained recording. A flush already running makes this
    /// one return its own empty summary at once.
    @discardableResult
    public func flush() async -> FlushSummary {
        await flushIfIdle() ?? FlushSummary()
    }

    /// Like ``flush()``, but a flush already running is waited for, and then this one runs: what
    /// was recorded before the call has been given to the sender when it returns.
    @discardableResult
    public func flushAfterRunning() async -> FlushSummary {
        while true {
            if let summary = await flushIfIdle() { return summary }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Flushes, unless a flush is running (then `nil` at once).
    private func flushIfIdle() async -> FlushSummary? {
        let mine = state.withLock { state -> Bool in
            guard !state.flushing else { return false }
            state.flushing = true
            return true
        }
        var summary = FlushSummary()
        guard mine else { return nil }
        defer { state.withLock { $0.flushing = false } }
        // Wait for the events recorded before this call to be stored (not for the inbox to be
        // empty, which it never is while recording goes on).
        let recordedBefore = state.withLock { $0.accepted }
        while state.withLock({ $0.settled < recordedBefore }) { try? await Task.sleep(for: .milliseconds(1)) }
        var last: Int64 = 0
        do {
            // What is queued now is this flush's work; later records are the next flush's.
            let ceiling = try await queue.newestId()
            while true {
                let batch = try await queue.nextBatch(after: last, through: ceiling, limit: batchSize)
                guard let tail = batch.last else { break }
                last = tail.id
                let outcomes = await sender.send(batch)
                let applied = try await queue.apply(outcomes, to: batch)
                summary.sent += applied.accepted
                summary.refused += applied.refused
                summary.setAside += applied.setAside
                metrics?.flushed(applied, notSent: outcomes.count { if case .notSent = $0 { true } else { false } })
                if case .notSent(let reason)? = outcomes.first(where: { if case .notSent = $0 { true } else { false } }) {
                    summary.notSentReason = reason
                    break
                }
            }
        } catch {
            summary.notSentReason = "the queue could not be read: \(error)"
        }
        if let counts = try? await queue.counts() {
            summary.waiting = counts.waiting
            summary.setAsideTotal = counts.setAside
            metrics?.waiting.record(counts.waiting)
        }
        let log = Amplify.Logging.logger(forCategory: "Analytics")
        let metadata = [LogMetadataKey.plugin: pluginKey, LogMetadataKey.operation: "flush"]
        log.log(
            level: summary.notSentReason == nil ? .debug : .warn,
            "Flushed: \(summary.sent) sent, \(summary.refused) refused, \(summary.setAside) set aside, \(summary.waiting) waiting"
                + (summary.notSentReason.map { "; stopped early: \($0)" } ?? ""),
            metadata: metadata)
        dispatch(HubPayload.EventName.Analytics.flushEvents, summary)
        return summary
    }

    /// Stops the timer, stores what was recorded, and closes the queue. Later records are refused.
    public func close() async {
        timer.withLock { $0?.cancel() }
        while state.withLock({ $0.draining }) { try? await Task.sleep(for: .milliseconds(1)) }
        state.withLock { $0.closed = true }
        await queue.close()
    }
}

/// An analytics plugin built on ``AnalyticsEngine`` (the local and the Kinesis plugin), so tools
/// can record durably, flush and read the queue's counts whatever the target.
public protocol AnalyticsEngineProviding: AnalyticsFlushWaiting {
    /// The engine; `nil` before `configure`.
    var engine: AnalyticsEngine? { get }
    /// Where events go, for people (`/srv/app/.amplify/analytics/events.jsonl`, `kinesis:clicks`).
    var targetDescription: String { get }
}

extension AnalyticsEngineProviding {
    private func withEngine(_ call: String, _ body: (AnalyticsEngine) -> Void) {
        guard let engine else {
            Amplify.Logging.logger(forCategory: "Analytics").error(
                "Analytics.\(call) before the \(key) plugin was configured; call Amplify.configure() first.")
            return
        }
        body(engine)
    }

    /// See `AnalyticsCategoryBehavior/identifyUser(userId:userProfile:)`.
    public func identifyUser(userId: String, userProfile: AnalyticsUserProfile?) {
        withEngine("identifyUser") { $0.identifyUser(userId) }
    }

    /// See `AnalyticsCategoryBehavior/record(event:)`.
    public func record(event: any AnalyticsEvent) {
        withEngine("record") { $0.record(event) }
    }

    /// See `AnalyticsCategoryBehavior/record(eventWithName:)`.
    public func record(eventWithName eventName: String) {
        record(event: BasicAnalyticsEvent(name: eventName))
    }

    /// See `AnalyticsCategoryBehavior/registerGlobalProperties(_:)`.
    public func registerGlobalProperties(_ properties: AnalyticsProperties) {
        withEngine("registerGlobalProperties") { $0.registerGlobalProperties(properties) }
    }

    /// See `AnalyticsCategoryBehavior/unregisterGlobalProperties(_:)`.
    public func unregisterGlobalProperties(_ keys: Set<String>?) {
        withEngine("unregisterGlobalProperties") { $0.unregisterGlobalProperties(keys) }
    }

    /// Starts a flush; its ``FlushSummary`` goes to the Hub (`Analytics.flushEvents`).
    public func flushEvents() {
        withEngine("flushEvents") { engine in Task { await engine.flush() } }
    }

    /// Flushes and returns when the flush is done (after events recorded before the call are
    /// stored); nothing before `configure`. See `AnalyticsFlushWaiting`.
    public func flushAndWait() async {
        await engine?.flushAfterRunning()
    }

    /// See `AnalyticsCategoryBehavior/enable()`.
    public func enable() {
        withEngine("enable") { $0.enable() }
    }

    /// See `AnalyticsCategoryBehavior/disable()`.
    public func disable() {
        withEngine("disable") { $0.disable() }
    }
}

/// The engine's metric objects for one plugin.
private struct AnalyticsMetrics: Sendable {
    let queued: Counter
    let sent: Counter
    let recordFailed: Counter
    let flushFailed: Counter
    let refused: Counter
    let setAside: Counter
    let waiting: Recorder

    init(pluginKey: PluginKey, factory: any MetricsFactory) {
        let plugin = [("plugin", pluginKey)]
        queued = Counter(label: AmplifyMetrics.analyticsQueued, dimensions: plugin, factory: factory)
        sent = Counter(label: AmplifyMetrics.analyticsSent, dimensions: plugin, factory: factory)
        recordFailed = Counter(label: AmplifyMetrics.analyticsFailed, dimensions: plugin + [("stage", "record")], factory: factory)
        flushFailed = Counter(label: AmplifyMetrics.analyticsFailed, dimensions: plugin + [("stage", "flush")], factory: factory)
        refused = Counter(label: AmplifyMetrics.analyticsRefused, dimensions: plugin, factory: factory)
        setAside = Counter(label: AmplifyMetrics.analyticsSetAside, dimensions: plugin, factory: factory)
        waiting = Gauge(label: AmplifyMetrics.analyticsWaiting, dimensions: plugin, factory: factory)
    }

    /// One batch's outcomes, applied to the queue.
    func flushed(_ applied: (accepted: Int, refused: Int, setAside: Int), notSent: Int) {
        if applied.accepted > 0 { sent.increment(by: applied.accepted) }
        if applied.refused > 0 { refused.increment(by: applied.refused) }
        if applied.setAside > 0 { setAside.increment(by: applied.setAside) }
        if notSent > 0 { flushFailed.increment(by: notSent) }
    }
}
