import Amplify
import AmplifyConcurrency
import AmplifyEventLoop
import Foundation

/// What every analytics plugin of this package does, whatever the target: global properties,
/// the identified user, enable / disable, recording into the ``DurableEventQueue`` in call order,
/// flushing batches through an ``AnalyticsEventSender``, auto-flush on a loop timer, and the Hub
/// events (`Analytics.record` once an event is stored, with the ``AnalyticsRecord`` or the error;
/// `Analytics.flushEvents` with a ``FlushSummary``; `Analytics.identifyUser` with the user id).
public final class AnalyticsEngine: Sendable {
    private struct State {
        var enabled = true
        var globalProperties: AnalyticsProperties = [:]
        var userId: String?
        var inbox: [(AnalyticsRecord, CheckedContinuation<Void, any Error>?)] = []
        var draining = false
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

    /// An engine storing into `queue` and delivering through `sender`, `batchSize` records per
    /// call, flushing every `autoFlushInterval` on `loop` (`nil` or zero: only on request).
    /// - Parameters:
    ///   - queue: the durable queue events are stored in before they are sent.
    ///   - sender: what delivers a batch (a file, a stream service).
    ///   - batchSize: how many records one call of `sender` gets.
    ///   - autoFlushInterval: how often the queue is flushed on its own (`nil` or zero: only on request).
    ///   - loop: the event loop the flush timer runs on.
    ///   - dispatch: where Hub events go (`Amplify.Hub`'s `.analytics` channel by default).
    /// - Throws: `EventLoopError` if the timer cannot be scheduled.
    public init(
        queue: DurableEventQueue, sender: any AnalyticsEventSender, batchSize: Int = 100,
        autoFlushInterval: Duration? = nil, loop: EventLoop? = nil,
        dispatch: (@Sendable (String, any Sendable) -> Void)? = nil
    ) throws {
        self.queue = queue
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
    /// order, and `Analytics.record` reports each outcome.
    public func record(_ event: any AnalyticsEvent) {
        enqueue(event, continuation: nil)
    }

    /// Records `event` and returns once it is stored durably (it survives a crash from then on).
    /// - Throws: ``AnalyticsQueueError/full(limit:)``, a storage error, or
    ///   `AnalyticsError/configuration(_:_:_:)` when recording is disabled.
    public func recordDurably(_ event: any AnalyticsEvent) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            enqueue(event, continuation: continuation)
        }
    }

    private func enqueue(_ event: any AnalyticsEvent, continuation: CheckedContinuation<Void, any Error>?) {
        let startDrain = state.withLock { state -> Bool? in
            guard state.enabled, !state.closed else { return nil }
            state.inbox.append((AnalyticsRecord(event: event, globalProperties: state.globalProperties, userId: state.userId), continuation))
            guard !state.draining else { return false }
            state.draining = true
            return true
        }
        switch startDrain {
        case nil:
            continuation?.resume(throwing: AnalyticsError.configuration(
                "Analytics is disabled (or reset); the event '\(event.name)' was not recorded.", "Call Amplify.Analytics.enable() first."))
        case true?:
            Task { await drain() }
        case false?:
            break
        }
    }

    /// Stores what the inbox holds, a round at a time, in order.
    private func drain() async {
        while true {
            let round = state.withLock { state -> [(AnalyticsRecord, CheckedContinuation<Void, any Error>?)] in
                defer { state.inbox.removeAll(keepingCapacity: true) }
                if state.inbox.isEmpty { state.draining = false }
                return state.inbox
            }
            if round.isEmpty { return }
            do {
                let refusals = try await queue.append(round.map(\.0))
                for ((record, continuation), refusal) in zip(round, refusals) {
                    if let refusal {
                        continuation?.resume(throwing: refusal)
                        dispatch(HubPayload.EventName.Analytics.record, AnalyticsError.unknown("\(refusal)", refusal))
                    } else {
                        continuation?.resume()
                        dispatch(HubPayload.EventName.Analytics.record, record)
                    }
                }
            } catch {
                for (_, continuation) in round { continuation?.resume(throwing: error) }
                dispatch(HubPayload.EventName.Analytics.record, AnalyticsError.unknown("The analytics queue could not store \(round.count) event(s): \(error)", error))
            }
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

    /// Delivers every waiting record once through the sender, in batches in recording order,
    /// and reports a ``FlushSummary`` on the Hub. A flush already running makes this one return
    /// its own empty summary at once.
    @discardableResult
    public func flush() async -> FlushSummary {
        let mine = state.withLock { state -> Bool in
            guard !state.flushing else { return false }
            state.flushing = true
            return true
        }
        var summary = FlushSummary()
        guard mine else { return summary }
        defer { state.withLock { $0.flushing = false } }
        // Wait for events recorded before this call to be stored first.
        while state.withLock({ $0.draining }) { try? await Task.sleep(for: .milliseconds(1)) }
        var last: Int64 = 0
        do {
            while true {
                let batch = try await queue.nextBatch(after: last, limit: batchSize)
                guard let tail = batch.last else { break }
                last = tail.id
                let outcomes = await sender.send(batch)
                let applied = try await queue.apply(outcomes, to: batch)
                summary.sent += applied.accepted
                summary.refused += applied.refused
                summary.setAside += applied.setAside
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
        }
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
public protocol AnalyticsEngineProviding: AnalyticsCategoryPlugin {
    /// The engine; `nil` before `configure`.
    var engine: AnalyticsEngine? { get }
    /// Where events go, for people (`/srv/app/.amplify/analytics/events.jsonl`, `kinesis:clicks`).
    var targetDescription: String { get }
}

extension AnalyticsEngineProviding {
    private func withEngine(_ call: String, _ body: (AnalyticsEngine) -> Void) {
        guard let engine else {
            Amplify.Logging.logger(forCategory: "Analytics").error("Analytics.\(call) before the \(key) plugin was configured; call Amplify.configure() first.")
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

    /// See `AnalyticsCategoryBehavior/enable()`.
    public func enable() {
        withEngine("enable") { $0.enable() }
    }

    /// See `AnalyticsCategoryBehavior/disable()`.
    public func disable() {
        withEngine("disable") { $0.disable() }
    }
}
