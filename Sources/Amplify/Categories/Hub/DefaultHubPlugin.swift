import AmplifyConcurrency
import AmplifyEventLoop
import CoreMetrics
import Foundation
import Synchronization

/// The Hub plugin that is there from the start: an ordered, lossless dispatcher on the Amplify
/// event loop (see ``HubCategoryBehavior`` for the contract).
///
/// One queue, drained on the loop thread, carries events and listener registrations alike, so
/// every listener sees exactly the events dispatched after its `listen` returned, in dispatch
/// order. A dispatch takes one lock (the queue's) and signals the loop's wake-up when the queue
/// was empty; the loop swaps the whole queue out and calls each listener of the event's channel.
///
/// The queue is bounded (``queueLimit``, 1,048,576 events by default) and loses nothing when it
/// is full: a dispatch from another thread waits for room for up to ``overloadWait`` (then queues
/// anyway and reports); ``dispatchWaitingForRoom(to:payload:)`` suspends until there is room; a
/// dispatch from the loop thread itself (inside a listener) never waits, since the loop would then
/// wait for itself. Every overload is counted (``overloadCount``) and reported once per episode at
/// the `error` level, naming the listener the loop was in (where it was registered).
///
/// Configuration block (optional), under `hub.plugins.defaultHubPlugin`:
/// `{"slowListenerThresholdMilliseconds": 50, "maxQueuedEvents": 1048576, "overloadWaitMilliseconds": 1000}`
/// — a listener call that holds the loop longer than the threshold is reported once through the
/// Logging category.
public final class DefaultHubPlugin: HubCategoryPlugin, @unchecked Sendable {
    // @unchecked Sendable: `builtInListeners`, `customListeners`, `spare` and `closedOnLoop` are
    // touched only on the loop thread; `inbox` and `registry` are behind their `Locked`s;
    // everything else is immutable or atomic.
    //
    // The plugin's parts, one file each: this file holds its state and its public surface;
    // DefaultHubPlugin+Inbox.swift the queue every thread appends to (its waiters and overload);
    // DefaultHubPlugin+Delivery.swift the loop side (the listener tables, the drain, delivery and
    // closing); HubListenerBox.swift one registered listener.

    /// The plugin's key in the configuration file (`hub.plugins.defaultHubPlugin`; amplify-swift's
    /// `awsHubPlugin` is read too).
    public static let pluginKey: PluginKey = "defaultHubPlugin"
    /// The default slow-listener threshold.
    public static let defaultSlowListenerThreshold: Duration = .milliseconds(50)

    /// amplify-swift's key for its default Hub plugin, `"awsHubPlugin"` (code written for
    /// amplify-swift checks `plugin.key == "awsHubPlugin"`). The plugin also answers to
    /// ``pluginKey`` in `Amplify.Hub.getPlugin(for:)` and in a configuration file.
    public var key: PluginKey { Self.key }

    /// amplify-swift's key for its default Hub plugin, `"awsHubPlugin"`, so `AWSHubPlugin.key`
    /// finds it.
    public static var key: PluginKey { HubCategory.awsHubPluginKey }

    /// The most queue entries whose storage a drain keeps for the next one.
    package static let retainedBatchCapacity = 256

    /// The default ``queueLimit``.
    public static let defaultQueueLimit = 1 << 20
    /// The accepted `maxQueuedEvents`.
    public static let queueLimitRange: ClosedRange<Int> = 1...(1 << 30)
    /// The default ``overloadWait``.
    public static let defaultOverloadWait: Duration = .seconds(1)
    /// The accepted `overloadWaitMilliseconds` (0: a full queue never blocks a producer).
    public static let overloadWaitRange: ClosedRange<Double> = 0...60_000

    /// The loop listeners run on (`nil` if the plugin could not start).
    public let loop: EventLoop?
    let monitor: SlowListenerMonitor
    /// `nil` when no metrics backend is bootstrapped: then no metric work at all.
    let metrics: HubMetrics?
    let inbox = Locked(Inbox())
    /// Registered listeners by the first 8 bytes of their token's id (the box keeps the other
    /// 8, checked on removal): 16 bytes an entry rather than a `UUID` key's 24, part of keeping
    /// a listener within 128 bytes.
    let registry = Locked<[UInt64: HubListenerBox]>([:])
    /// How each `AsyncSequence` subscription's stream is ended, by listener serial (closure
    /// listeners have none, so their boxes carry no slot for it).
    let streamFinishes = Locked<[Int: @Sendable () -> Void]>([:])
    let relay: DrainRelay
    let wakeup: LoopWakeup?
    // Loop-thread state. Exclusivity is unchecked: only the loop thread touches these, and the
    // drain loop never holds an access across a listener call that could re-enter it.
    @exclusivity(unchecked) var builtInListeners = DefaultHubPlugin.emptyBuiltInTables
    @exclusivity(unchecked) var customListeners: [String: ContiguousArray<HubListenerBox>] = [:]
    @exclusivity(unchecked) var spare: [Entry] = []
    @exclusivity(unchecked) var closedOnLoop = false
    /// The most entries one drain found waiting (written by the loop, read by anyone).
    let peakDepth = Atomic<Int>(0)
    /// The capacity of the batch storage kept between drains (written by the loop).
    let keptCapacity = Atomic<Int>(0)
    let limit = Atomic<Int>(DefaultHubPlugin.defaultQueueLimit)
    let overloadWaitNanoseconds = Atomic<Int>(1_000_000_000)
    let overloads = Atomic<Int>(0)
    let lastReport = Locked<String?>(nil)

    static var emptyBuiltInTables: [ContiguousArray<HubListenerBox>] {
        [ContiguousArray<HubListenerBox>](repeating: [], count: HubChannel.builtInCount)
    }

    /// A Hub on `loop` (the shared Amplify loop by default), reporting its metrics
    /// (``AmplifyMetrics``) to `metricsFactory` (default: `MetricsSystem.factory`, looked at
    /// once, now; with no backend bootstrapped the Hub does no metric work).
    ///
    /// If the loop cannot be used (it was shut down), the plugin logs the error, starts closed
    /// and drops what is dispatched to it.
    public init(loop: EventLoop? = nil, metricsFactory: (any MetricsFactory)? = nil) {
        var started: (EventLoop, LoopWakeup)?
        let relay = DrainRelay()
        self.relay = relay
        // The shared loop can be shutting down under a first use that raced `Amplify.reset()`;
        // the runtime then starts a new one, so that case is tried again before it counts.
        for attempt in 1...3 where started == nil {
            do {
                let chosen = try loop ?? AmplifyRuntime.shared.eventLoop()
                started = (chosen, try LoopWakeup.make(on: chosen) { relay.drain() })
            } catch EventLoopError.shutDown where loop == nil && attempt < 3 {
                continue
            } catch {
                Amplify.Logging.logger(forCategory: "Hub").error("The Hub could not start on the event loop: \(error)")
                break
            }
        }
        self.loop = started?.0
        wakeup = started?.1
        let metrics = HubMetrics.make(metricsFactory)
        self.metrics = metrics
        monitor = SlowListenerMonitor(
            threshold: Self.defaultSlowListenerThreshold, loopName: started?.0.name ?? "hub", slowListeners: metrics?.slowListeners)
        guard let (loop, _) = started else {
            inbox.withLock { $0.closed = true }
            closedOnLoop = true
            return
        }
        relay.attach(self)
        // If the loop shuts down under the Hub (Amplify.reset() shutting the shared loop down
        // while another thread started a Hub on it), the Hub closes with it: what was queued is
        // delivered, waiters are released, and later calls do not wait for a loop that is gone.
        try? loop.execute { [loop] in loop.onShutdown { relay.loopEnded() } }
    }

    /// Whether the plugin is closed: reset, or its loop shut down (it delivers nothing more).
    public var isClosed: Bool { inbox.withLock { $0.closed } }

    /// How long a listener call may hold the loop before it is reported.
    public var slowListenerThreshold: Duration {
        get { monitor.threshold }
        set { monitor.threshold = newValue }
    }

    /// The accepted `slowListenerThresholdMilliseconds`: one microsecond to one hour.
    public static let slowListenerThresholdRange: ClosedRange<Double> = 0.001...3_600_000

    /// How many events the queue holds before a dispatch counts as an overload (and, from
    /// another thread, waits for room). Memory holds at most this many waiting events plus the
    /// batch being delivered.
    public var queueLimit: Int {
        get { limit.load(ordering: .relaxed) }
        set { limit.store(min(max(newValue, Self.queueLimitRange.lowerBound), Self.queueLimitRange.upperBound), ordering: .relaxed) }
    }

    /// How long a synchronous dispatch from another thread waits for room in a full queue before
    /// it queues anyway and reports.
    public var overloadWait: Duration {
        get { .nanoseconds(overloadWaitNanoseconds.load(ordering: .relaxed)) }
        set {
            let (seconds, attoseconds) = newValue.components
            let nanoseconds = Int(clamping: seconds).multipliedReportingOverflow(by: 1_000_000_000)
            overloadWaitNanoseconds.store(
                nanoseconds.overflow ? Int.max : max(0, nanoseconds.partialValue &+ Int(attoseconds / 1_000_000_000)), ordering: .relaxed)
        }
    }

    /// How many dispatches found the queue full.
    public var overloadCount: Int { overloads.load(ordering: .relaxed) }

    /// The last overload report (also logged at `error`), `nil` before the first.
    public var lastOverloadReport: String? { lastReport.value }

    /// Reads `slowListenerThresholdMilliseconds`, `maxQueuedEvents` and
    /// `overloadWaitMilliseconds` from the plugin's block.
    /// - Throws: ``ConfigurationValueError`` naming the key and its range (``slowListenerThresholdRange``,
    ///   ``queueLimitRange``, ``overloadWaitRange``) if a value is not a number in it.
    public func configure(using configuration: Any?) throws {
        guard let json = configuration as? JSONValue else { return }
        if let milliseconds = try json.boundedNumber(
            "slowListenerThresholdMilliseconds", in: Self.slowListenerThresholdRange, unit: "milliseconds")
        {
            slowListenerThreshold = .nanoseconds(Int64((milliseconds * 1_000_000).rounded()))
        }
        if let maximum = try json.boundedInt("maxQueuedEvents", in: Self.queueLimitRange, unit: "events") {
            queueLimit = maximum
        }
        if let milliseconds = try json.boundedNumber("overloadWaitMilliseconds", in: Self.overloadWaitRange, unit: "milliseconds") {
            overloadWait = .nanoseconds(Int64((milliseconds * 1_000_000).rounded()))
        }
    }

    /// Delivers everything already dispatched, ends every listener and stream, stops the
    /// watchdog and closes the loop handle. Later dispatches are dropped (there is no one left
    /// to receive them).
    public func reset() async {
        await withCheckedContinuation { continuation in
            if !enqueue(Entry(.close(continuation))) { continuation.resume() }
        }
        monitor.stop()
    }

    // MARK: Any thread

    /// See ``HubCategoryBehavior/dispatch(to:payload:)``. When the queue is full, a call from
    /// another thread waits up to ``overloadWait`` for room, then queues anyway; a call on the loop
    /// thread queues at once. Either way the overload is counted and reported.
    public func dispatch(to channel: HubChannel, payload: HubPayload) {
        enqueueEvent(channel, payload)
    }

    /// See ``HubCategoryBehavior/listen(to:isIncluded:listener:)``. Slow-listener reports name
    /// the listener by its token (the `file:line:` form names where it was registered).
    @discardableResult
    public func listen(to channel: HubChannel, isIncluded filter: HubFilter?, listener: @escaping HubListener) -> UnsubscribeToken {
        register(channel, eventName: nil, filter: filter, file: "a listener on \(channel.name)", line: 0, listener: listener)
    }

    /// See ``HubCategoryBehavior/listen(to:eventName:listener:)``.
    @discardableResult
    public func listen(to channel: HubChannel, eventName: HubPayloadEventName, listener: @escaping HubListener) -> UnsubscribeToken {
        register(channel, eventName: eventName, filter: nil, file: "a listener for \(eventName)", line: 0, listener: listener)
    }

    /// Whether a listener (or stream) with `token` is registered: `false` once
    /// ``removeListener(_:)`` has returned for it, or after a reset. Safe from any thread.
    public func hasListener(withToken token: UnsubscribeToken) -> Bool {
        let (high, low) = Self.halves(of: token.id)
        return registry.withLock { $0[high]?.idLow == low }
    }

    /// See ``HubCategoryBehavior/listen(to:isIncluded:file:line:listener:)``.
    @discardableResult
    public func listen(
        to channel: HubChannel, isIncluded filter: HubFilter?, file: String, line: Int,
        listener: @escaping HubListener
    ) -> UnsubscribeToken {
        register(channel, eventName: nil, filter: filter, file: file, line: line, listener: listener)
    }

    /// See ``HubCategoryBehavior/listen(to:eventName:file:line:listener:)``.
    @discardableResult
    public func listen(
        to channel: HubChannel, eventName: String, file: String, line: Int,
        listener: @escaping HubListener
    ) -> UnsubscribeToken {
        register(channel, eventName: eventName, filter: nil, file: file, line: line, listener: listener)
    }

    private func register(
        _ channel: HubChannel, eventName: String?, filter: HubFilter?, file: String, line: Int,
        finish: (@Sendable () -> Void)? = nil, listener: @escaping HubListener
    ) -> UnsubscribeToken {
        let serial = monitor.register(file: file, line: line, channel: channel)
        let predicate: HubListenerBox.Predicate = if let eventName { .eventName(eventName) } else if let filter { .filter(filter) } else { .all }
        // A fresh id whose first half no registered listener has (a clash of random 64-bit
        // halves is all but impossible; it is drawn again rather than trusted).
        let (token, box) = registry.withLock { registry -> (UnsubscribeToken, HubListenerBox) in
            while true {
                let id = UUID()
                let (high, low) = Self.halves(of: id)
                guard registry[high] == nil else { continue }
                let box = HubListenerBox(serial: serial, idLow: low, predicate: predicate, listener: listener)
                registry[high] = box
                return (UnsubscribeToken(channel: channel, id: id), box)
            }
        }
        if let finish { streamFinishes.withLock { $0[serial] = finish } }
        if !enqueue(Entry(channel, .add(box))) {
            // The Hub was reset: the listener will never be called; end a stream at once.
            registry.withLock { _ = $0.removeValue(forKey: Self.halves(of: token.id).high) }
            monitor.unregister(serial: serial)
            streamFinishes.withLock { _ = $0.removeValue(forKey: serial) }
            finish?()
        }
        return token
    }

    /// See ``HubCategoryBehavior/removeListener(_:)``.
    public func removeListener(_ token: UnsubscribeToken) {
        let (high, low) = Self.halves(of: token.id)
        let found = registry.withLock { registry -> HubListenerBox? in
            guard let box = registry[high], box.idLow == low else { return nil }
            registry.removeValue(forKey: high)
            return box
        }
        guard let box = found else { return }
        box.removed.store(true, ordering: .releasing)
        streamFinishes.withLock { _ = $0.removeValue(forKey: box.serial) }
        // After this, the loop's plain load of `removed` sees `true` for every call it has not
        // started yet.
        loop?.publishToLoopThread()
        monitor.unregister(serial: box.serial)
        enqueue(Entry(token.channel, .remove(box)))
    }

    /// A token id's two 8-byte halves.
    private static func halves(of id: UUID) -> (high: UInt64, low: UInt64) {
        withUnsafeBytes(of: id.uuid) { bytes in (bytes.loadUnaligned(as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
    }

    /// See ``HubCategoryBehavior/events(on:isIncluded:bufferingPolicy:)``.
    public func events(
        on channel: HubChannel, isIncluded filter: HubFilter?, bufferingPolicy: HubEventStream.BufferingPolicy
    ) -> HubEventStream {
        let (stream, continuation) = AsyncStream<HubPayload>.makeStream(bufferingPolicy: bufferingPolicy.streamPolicy)
        let drops = DropCounter()
        let token = register(
            channel, eventName: nil, filter: filter, file: "HubEventStream", line: 0, finish: { continuation.finish() }
        ) { payload in
            if case .dropped = continuation.yield(payload), drops.record() {
                Amplify.Logging.logger(forCategory: "Hub").error(
                    "A Hub event stream on channel '\(channel.name)' dropped a payload: its consumer is behind and its buffering policy is \(bufferingPolicy)."
                )
            }
        }
        continuation.onTermination = { [weak self] _ in self?.removeListener(token) }
        return HubEventStream(stream: stream, drops: drops)
    }

    /// See ``HubCategoryBehavior/flush()``.
    public func flush() async {
        // On the loop itself, waiting would block the loop that must do the delivering.
        guard let loop, !loop.inEventLoop else { return }
        await withCheckedContinuation { continuation in
            if !enqueue(Entry(.flush(continuation))) { continuation.resume() }
        }
    }

    /// The most payloads that have waited in the queue at once (dispatched, not yet delivered):
    /// the Hub's memory use beyond its listeners is this many entries.
    public var peakQueueDepth: Int { peakDepth.load(ordering: .relaxed) }

    /// How many entries the batch storage kept between drains can hold: at most
    /// `retainedBatchCapacity` once a burst is over (for tests of that bound).
    package var keptBatchCapacity: Int { keptCapacity.load(ordering: .relaxed) }

    /// How many listeners (and streams) are registered.
    public var listenerCount: Int { registry.withLock { $0.count } }
}

/// amplify-swift's name for its default Hub plugin: here the same plugin as ``DefaultHubPlugin``.
public typealias AWSHubPlugin = DefaultHubPlugin
