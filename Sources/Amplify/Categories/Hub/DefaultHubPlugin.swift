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
/// Configuration block (optional), under `hub.plugins.defaultHubPlugin`:
/// `{"slowListenerThresholdMilliseconds": 50}` — a listener call that holds the loop longer is
/// reported once through the Logging category.
public final class DefaultHubPlugin: HubCategoryPlugin, @unchecked Sendable {
    // @unchecked Sendable: `builtInListeners`, `customListeners`, `spare` and `closedOnLoop` are
    // touched only on the loop thread; `inbox` and `registry` are behind their `Locked`s;
    // everything else is immutable or atomic.

    /// The plugin's key in the configuration file.
    public static let pluginKey: PluginKey = "defaultHubPlugin"
    /// The default slow-listener threshold.
    public static let defaultSlowListenerThreshold: Duration = .milliseconds(50)

    /// `"defaultHubPlugin"`.
    public var key: PluginKey { Self.pluginKey }

    /// A queue entry: an event, or (rarely) a change to the listener tables or a barrier, which
    /// travel in the same queue so they take effect at exactly their place among the events.
    /// A struct, not an enum with payloads, so that queueing and draining copy plainly.
    private struct Entry: Sendable {
        let channel: HubChannel
        let payload: HubPayload
        /// A class reference, so an event's entry carries a plain null here.
        let control: ControlBox?

        init(_ channel: HubChannel, _ payload: consuming HubPayload) {
            self.channel = channel
            self.payload = payload
            control = nil
        }

        init(_ control: Control) {
            channel = .hub
            payload = HubPayload(eventName: "")
            self.control = ControlBox(control)
        }
    }

    private enum Control: Sendable {
        case add(HubListenerBox)
        case remove(HubListenerBox)
        case flush(CheckedContinuation<Void, Never>)
        case close(CheckedContinuation<Void, Never>)
    }

    private final class ControlBox: Sendable {
        let control: Control
        init(_ control: Control) { self.control = control }
    }

    private struct Inbox {
        var entries: [Entry] = []
        var wakeupPending = false
        var closed = false
    }

    /// The loop listeners run on (`nil` if the plugin could not start).
    public let loop: EventLoop?
    let monitor: SlowListenerMonitor
    /// `nil` when no metrics backend is bootstrapped: then no metric work at all.
    private let metrics: HubMetrics?
    private let inbox = Locked(Inbox())
    private let registry = Locked<[UUID: HubListenerBox]>([:])
    private let serials = Atomic<Int>(0)
    private let relay: DrainRelay
    private let wakeup: LoopWakeup?
    // Loop-thread state. Exclusivity is unchecked: only the loop thread touches these, and the
    // drain loop never holds an access across a listener call that could re-enter it.
    @exclusivity(unchecked) private var builtInListeners = DefaultHubPlugin.emptyBuiltInTables
    @exclusivity(unchecked) private var customListeners: [String: ContiguousArray<HubListenerBox>] = [:]
    @exclusivity(unchecked) private var spare: [Entry] = []
    @exclusivity(unchecked) private var closedOnLoop = false
    /// The most entries one drain found waiting (written by the loop, read by anyone).
    private let peakDepth = Atomic<Int>(0)

    private static var emptyBuiltInTables: [ContiguousArray<HubListenerBox>] {
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
        do {
            let loop = try loop ?? AmplifyRuntime.shared.eventLoop()
            started = (loop, try LoopWakeup.make(on: loop) { relay.drain() })
        } catch {
            Amplify.Logging.logger(forCategory: "Hub").error("The Hub could not start on the event loop: \(error)")
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

    /// Reads `slowListenerThresholdMilliseconds` from the plugin's block.
    /// - Throws: ``ConfigurationValueError`` naming the key and ``slowListenerThresholdRange``
    ///   if it is not a number in that range.
    public func configure(using configuration: Any?) throws {
        guard let json = configuration as? JSONValue else { return }
        if let milliseconds = try json.boundedNumber(
            "slowListenerThresholdMilliseconds", in: Self.slowListenerThresholdRange, unit: "milliseconds") {
            slowListenerThreshold = .nanoseconds(Int64((milliseconds * 1_000_000).rounded()))
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

    /// See ``HubCategoryBehavior/dispatch(to:payload:)``.
    public func dispatch(to channel: HubChannel, payload: HubPayload) {
        enqueue(Entry(channel, payload))
    }

    /// Queues an event; `false` if the plugin is closed (the category then replaces it).
    @inline(__always)
    func enqueueEvent(_ channel: HubChannel, _ payload: consuming HubPayload) -> Bool {
        enqueue(Entry(channel, payload))
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
        let token = UnsubscribeToken(channel: channel, id: UUID())
        let serial = serials.wrappingAdd(1, ordering: .relaxed).newValue
        let box = HubListenerBox(
            token: token, serial: serial, eventName: eventName, filter: filter, listener: listener, finish: finish)
        registry.withLock { $0[token.id] = box }
        monitor.register(serial: serial, file: file, line: line, channel: channel)
        if !enqueue(Entry(.add(box))) {
            // The Hub was reset: the listener will never be called; end a stream at once.
            registry.withLock { _ = $0.removeValue(forKey: token.id) }
            finish?()
        }
        return token
    }

    /// See ``HubCategoryBehavior/removeListener(_:)``.
    public func removeListener(_ token: UnsubscribeToken) {
        guard let box = registry.withLock({ $0.removeValue(forKey: token.id) }) else { return }
        box.removed.store(true, ordering: .releasing)
        // After this, the loop's plain load of `removed` sees `true` for every call it has not
        // started yet.
        loop?.publishToLoopThread()
        monitor.unregister(serial: box.serial)
        enqueue(Entry(.remove(box)))
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
                Amplify.Logging.logger(forCategory: "Hub").warn(
                    "A Hub event stream on channel '\(channel.name)' dropped a payload: its consumer is behind and its buffering policy is \(bufferingPolicy).")
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

    /// How many listeners (and streams) are registered.
    public var listenerCount: Int { registry.withLock { $0.count } }

    /// Appends to the queue; `false` if the Hub is closed.
    @discardableResult
    @inline(__always)
    private func enqueue(_ entry: Entry) -> Bool {
        let outcome = inbox.withLock { inbox -> Int in
            if inbox.closed { return 0 }
            inbox.entries.append(entry)
            if inbox.wakeupPending { return 1 }
            inbox.wakeupPending = true
            return 2
        }
        if outcome == 2 { wakeup?.signal() }
        return outcome != 0
    }

    // MARK: Loop thread

    fileprivate func drain() {
        var batch = spare
        inbox.withLock { inbox in
            swap(&inbox.entries, &batch)
            inbox.wakeupPending = false
        }
        if batch.count > peakDepth.load(ordering: .relaxed) { peakDepth.store(batch.count, ordering: .relaxed) }
        var events = 0
        var deliveries = 0
        batch.withUnsafeBufferPointer { entries in
            for index in entries.indices {
                guard let box = entries[index].control else {
                    events &+= 1
                    deliveries &+= deliver(entries[index].payload, on: entries[index].channel)
                    continue
                }
                switch box.control {
                case .add(let box): add(box)
                case .remove(let box): remove(box)
                case .flush(let continuation): continuation.resume()
                case .close(let continuation): closeOnLoop(continuation)
                }
            }
        }
        monitor.leave()
        metrics?.drained(events: events, deliveries: deliveries, depth: batch.count)
        batch.removeAll(keepingCapacity: true)
        spare = batch
    }

    /// Delivers one event; returns how many listeners were called.
    @inline(__always)
    private func deliver(_ payload: HubPayload, on channel: HubChannel) -> Int {
        // Borrow the table's array in place: no copy, no retain per event.
        if let index = channel.builtInIndex {
            return builtInListeners[index].withUnsafeBufferPointer { deliver(payload, to: $0) }
        } else if case .custom(let name) = channel {
            return customListeners[name]?.withUnsafeBufferPointer { deliver(payload, to: $0) } ?? 0
        }
        return 0
    }

    @inline(__always)
    private func deliver(_ payload: HubPayload, to boxes: UnsafeBufferPointer<HubListenerBox>) -> Int {
        monitor.nextEvent()
        var called = 0
        for index in boxes.indices {
            // The table owns the box for the whole call: no retain/release per delivery.
            Unmanaged.passUnretained(boxes[index])._withUnsafeGuaranteedRef { box in
                if box.removed.load(ordering: .relaxed) { return }
                if let eventName = box.eventName, eventName != payload.eventName { return }
                if let filter = box.filter, !filter(payload) { return }
                monitor.enter(box.serial)
                box.listener(payload)
                called &+= 1
            }
        }
        return called
    }

    private func add(_ box: HubListenerBox) {
        if box.removed.load(ordering: .relaxed) { return }
        if closedOnLoop {
            box.finish?()
            return
        }
        mutateListeners(of: box.token.channel) { $0.append(box) }
    }

    private func remove(_ box: HubListenerBox) {
        mutateListeners(of: box.token.channel) { list in
            if let index = list.firstIndex(where: { $0 === box }) { list.remove(at: index) }
        }
    }

    private func mutateListeners(of channel: HubChannel, _ change: (inout ContiguousArray<HubListenerBox>) -> Void) {
        if let index = channel.builtInIndex {
            change(&builtInListeners[index])
        } else if case .custom(let name) = channel {
            var list = customListeners[name] ?? []
            change(&list)
            customListeners[name] = list.isEmpty ? nil : list
        }
    }

    private func closeOnLoop(_ continuation: CheckedContinuation<Void, Never>) {
        finishOnLoop()
        continuation.resume()
    }

    /// The loop is shutting down: deliver what is queued (its wake-up may not have run yet),
    /// then close as a reset would, unless a reset already did.
    fileprivate func loopEnded() {
        guard !closedOnLoop else { return }
        drain()
        // The queue may have held a reset's close entry, which closed everything already.
        guard !closedOnLoop else { return }
        finishOnLoop()
    }

    private func finishOnLoop() {
        inbox.withLock { $0.closed = true }
        closedOnLoop = true
        // Entries queued after the close entry: deliver events (listeners are still here), and
        // release anyone waiting.
        drain()
        let everyone = builtInListeners.flatMap { $0 } + customListeners.values.flatMap { $0 }
        builtInListeners = Self.emptyBuiltInTables
        customListeners.removeAll()
        registry.withLock { $0.removeAll() }
        for box in everyone {
            box.removed.store(true, ordering: .relaxed)
            box.finish?()
        }
        relay.detach()
        wakeup?.close()
    }
}

/// One registered listener. Created by `listen`, added to the loop's tables through the
/// dispatch queue, and marked removed by `removeListener`.
private final class HubListenerBox: Sendable {
    let token: UnsubscribeToken
    /// A small number identifying the listener to the slow-listener monitor (never 0).
    let serial: Int
    let eventName: String?
    let filter: HubFilter?
    let listener: HubListener
    /// Ends an `AsyncSequence` subscription when the Hub resets.
    let finish: (@Sendable () -> Void)?
    /// Set (then published to the loop) by `removeListener`; read with a plain load per delivery.
    let removed = Atomic<Bool>(false)

    init(
        token: UnsubscribeToken, serial: Int, eventName: String?, filter: HubFilter?,
        listener: @escaping HubListener, finish: (@Sendable () -> Void)? = nil
    ) {
        self.token = token
        self.serial = serial
        self.eventName = eventName
        self.filter = filter
        self.listener = listener
        self.finish = finish
    }
}

/// Lets the wake-up's callback reach the plugin without a retain cycle that outlives close.
private final class DrainRelay: Sendable {
    private let target = Locked<DefaultHubPlugin?>(nil)

    func attach(_ hub: DefaultHubPlugin) { target.withLock { $0 = hub } }
    func detach() { target.withLock { $0 = nil } }
    func drain() { target.withLock { $0 }?.drain() }
    func loopEnded() { target.withLock { $0 }?.loopEnded() }
}
