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
            self.init(.hub, control)
        }

        /// A control entry about a listener on `channel` (adding, removing).
        init(_ channel: HubChannel, _ control: Control) {
            self.channel = channel
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
        /// Producers waiting for room, released by the next drain (or the close).
        var waiters: [Waiter] = []
        /// Whether the current overload episode was reported (cleared when the queue empties).
        var overloadReported = false
        /// Listeners (and streams) on each built-in channel, counted as their add and remove
        /// entries are queued: an event for a channel at 0 has nobody to reach (a listener added
        /// later sees only later events), so it is counted and not queued, and costs no wake-up of
        /// the loop. Custom channels are always queued.
        var listening = [Int](repeating: 0, count: HubChannel.builtInCount)

        /// Counts the listener that `control` adds to or removes from `channel`.
        mutating func count(_ control: Control, on channel: HubChannel) {
            guard let index = channel.builtInIndex else { return }
            switch control {
            case .add: listening[index] += 1
            case .remove: listening[index] -= 1
            case .flush, .close: break
            }
        }

        /// Whether an event on `channel` has no listener to reach.
        func nobodyListens(on channel: HubChannel) -> Bool {
            guard let index = channel.builtInIndex else { return false }
            return listening[index] == 0
        }
    }

    /// A producer waiting for room: a task suspended in ``dispatchWaitingForRoom(to:payload:)``, or
    /// a thread blocked in ``dispatch(to:payload:)`` for at most ``overloadWait``.
    private enum Waiter: Sendable {
        case task(CheckedContinuation<Void, Never>)
        case thread(DispatchSemaphore)

        func release() {
            switch self {
            case .task(let continuation): continuation.resume()
            case .thread(let semaphore): semaphore.signal()
            }
        }
    }

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
    private let metrics: HubMetrics?
    private let inbox = Locked(Inbox())
    /// Registered listeners by the first 8 bytes of their token's id (the box keeps the other
    /// 8, checked on removal): 16 bytes an entry rather than a `UUID` key's 24, part of keeping
    /// a listener within 128 bytes.
    private let registry = Locked<[UInt64: HubListenerBox]>([:])
    /// How each `AsyncSequence` subscription's stream is ended, by listener serial (closure
    /// listeners have none, so their boxes carry no slot for it).
    private let streamFinishes = Locked<[Int: @Sendable () -> Void]>([:])
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
    /// The capacity of the batch storage kept between drains (written by the loop).
    private let keptCapacity = Atomic<Int>(0)
    private let limit = Atomic<Int>(DefaultHubPlugin.defaultQueueLimit)
    private let overloadWaitNanoseconds = Atomic<Int>(1_000_000_000)
    private let overloads = Atomic<Int>(0)
    private let lastReport = Locked<String?>(nil)

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
            "slowListenerThresholdMilliseconds", in: Self.slowListenerThresholdRange, unit: "milliseconds") {
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

    /// Queues `payload` for `channel`, first suspending while the queue is full (until a drain
    /// makes room or the Hub closes); on the loop thread it does not wait. Use it from producers
    /// that can be slowed down, so a burst never outgrows ``queueLimit``.
    public func dispatchWaitingForRoom(to channel: HubChannel, payload: HubPayload) async {
        while true {
            let full: Bool = inbox.withLock { $0.entries.count >= limit.load(ordering: .relaxed) && !$0.closed }
            guard full, !(loop?.inEventLoop ?? true) else { break }
            noteOverload()
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let queued = inbox.withLock { inbox -> Bool in
                    guard inbox.entries.count >= limit.load(ordering: .relaxed), !inbox.closed else { return false }
                    inbox.waiters.append(.task(continuation))
                    return true
                }
                if !queued { continuation.resume() }
            }
        }
        enqueue(Entry(channel, payload))
    }

    /// Whether an event dispatched on `channel` now would reach anything: a listener or stream, the
    /// metrics backend (which counts every dispatch), or, once the plugin is closed, the plugin
    /// that replaces it. A producer whose payload costs something to build asks first; a listener
    /// added after this returns sees only later events either way.
    package func wantsEvents(on channel: HubChannel) -> Bool {
        if metrics != nil { return true }
        return inbox.withLock { $0.closed || !$0.nobodyListens(on: channel) }
    }

    /// Queues an event; `false` if the plugin is closed (the category then replaces it).
    @discardableResult
    @inline(__always)
    func enqueueEvent(_ channel: HubChannel, _ payload: HubPayload) -> Bool {
        let entry = Entry(channel, payload)
        let outcome = inbox.withLock { inbox -> Int in
            if inbox.closed { return 0 }
            if inbox.nobodyListens(on: channel) { return 4 }
            if inbox.entries.count >= limit.load(ordering: .relaxed) { return 3 }
            inbox.entries.append(entry)
            if inbox.wakeupPending { return 1 }
            inbox.wakeupPending = true
            return 2
        }
        switch outcome {
        case 0: return false
        case 1: return true
        case 2:
            wakeup?.signal()
            return true
        case 4:
            metrics?.dispatched.increment()
            return true
        default:
            return enqueueOverloaded(entry)
        }
    }

    /// The queue was full: wait (off the loop, for a bounded time) for room, then queue anyway.
    private func enqueueOverloaded(_ entry: Entry) -> Bool {
        noteOverload()
        let wait = overloadWaitNanoseconds.load(ordering: .relaxed)
        if wait > 0, !(loop?.inEventLoop ?? true) {
            let semaphore = DispatchSemaphore(value: 0)
            let waiting = inbox.withLock { inbox -> Bool in
                guard inbox.entries.count >= limit.load(ordering: .relaxed), !inbox.closed else { return false }
                inbox.waiters.append(.thread(semaphore))
                return true
            }
            if waiting, semaphore.wait(timeout: .now() + .nanoseconds(wait)) == .timedOut {
                report("a dispatch waited \(wait / 1_000_000) ms for room and queued anyway")
            }
        }
        return enqueue(entry)
    }

    /// Counts an overload and reports the first of an episode, naming the listener the loop is in.
    private func noteOverload() {
        overloads.wrappingAdd(1, ordering: .relaxed)
        let first = inbox.withLock { inbox -> Bool in
            defer { inbox.overloadReported = true }
            return !inbox.overloadReported
        }
        if first { report("its queue reached \(limit.load(ordering: .relaxed)) events") }
    }

    private func report(_ what: String) {
        let culprit = monitor.currentSite() ?? "its listeners as a whole"
        let message = "The Hub is overloaded: \(what); the loop is behind, delivering to \(culprit). Nothing is dropped; producers are slowed. Move heavy work out of listeners (Amplify.Hub.events(on:) or a Task), or raise maxQueuedEvents."
        lastReport.withLock { $0 = message }
        Amplify.Logging.logger(forCategory: "Hub").error(message)
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

    /// How many entries the batch storage kept between drains can hold: at most
    /// `retainedBatchCapacity` once a burst is over (for tests of that bound).
    package var keptBatchCapacity: Int { keptCapacity.load(ordering: .relaxed) }

    /// How many listeners (and streams) are registered.
    public var listenerCount: Int { registry.withLock { $0.count } }

    /// Appends to the queue; `false` if the Hub is closed.
    @discardableResult
    @inline(__always)
    private func enqueue(_ entry: Entry) -> Bool {
        let outcome = inbox.withLock { inbox -> Int in
            if inbox.closed { return 0 }
            if let box = entry.control {
                inbox.count(box.control, on: entry.channel)
            } else if inbox.nobodyListens(on: entry.channel) {
                return 3
            }
            inbox.entries.append(entry)
            if inbox.wakeupPending { return 1 }
            inbox.wakeupPending = true
            return 2
        }
        if outcome == 2 { wakeup?.signal() }
        if outcome == 3 { metrics?.dispatched.increment() }
        return outcome != 0
    }

    // MARK: Loop thread

    fileprivate func drain() {
        var batch = spare
        var waiters: [Waiter] = []
        inbox.withLock { inbox in
            swap(&inbox.entries, &batch)
            inbox.wakeupPending = false
            if !inbox.waiters.isEmpty { swap(&inbox.waiters, &waiters) }
            if batch.isEmpty { inbox.overloadReported = false }
        }
        for waiter in waiters { waiter.release() }
        if batch.count > peakDepth.load(ordering: .relaxed) { peakDepth.store(batch.count, ordering: .relaxed) }
        var events = 0
        var deliveries = 0
        // Flushes return once the drain is over: counted, and its storage kept or let go (a
        // caller reading the metrics or `keptBatchCapacity` after `flush()` sees this drain's).
        var flushes: [CheckedContinuation<Void, Never>] = []
        batch.withUnsafeBufferPointer { entries in
            for index in entries.indices {
                guard let box = entries[index].control else {
                    events &+= 1
                    deliveries &+= deliver(entries[index].payload, on: entries[index].channel)
                    continue
                }
                switch box.control {
                case .add(let box): add(box, on: entries[index].channel)
                case .remove(let box): remove(box, from: entries[index].channel)
                case .flush(let continuation): flushes.append(continuation)
                case .close(let continuation): closeOnLoop(continuation)
                }
            }
        }
        monitor.leave()
        metrics?.drained(events: events, deliveries: deliveries, depth: batch.count)
        // Keep the batch's storage for the next drain while it is being used; once a burst that
        // grew it is over (a drain uses under an eighth of it), let it go, so the Hub does not
        // hold a burst's peak memory until reset.
        if batch.capacity > Self.retainedBatchCapacity, batch.count < batch.capacity / 8 {
            spare = []
        } else {
            batch.removeAll(keepingCapacity: true)
            spare = batch
        }
        keptCapacity.store(spare.capacity, ordering: .relaxed)
        for flush in flushes { flush.resume() }
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
                switch box.predicate {
                case .all: break
                case .eventName(let eventName): if eventName != payload.eventName { return }
                case .filter(let filter): if !filter(payload) { return }
                }
                monitor.enter(box.serial)
                box.listener(payload)
                called &+= 1
            }
        }
        return called
    }

    private func add(_ box: HubListenerBox, on channel: HubChannel) {
        if box.removed.load(ordering: .relaxed) { return }
        if closedOnLoop {
            streamFinishes.withLock { $0.removeValue(forKey: box.serial) }?()
            return
        }
        mutateListeners(of: channel) { $0.append(box) }
    }

    /// Takes `box` out of `channel`'s table (a token made by hand may name another channel than
    /// the listener's: then every table is searched).
    private func remove(_ box: HubListenerBox, from channel: HubChannel) {
        var found = false
        mutateListeners(of: channel) { list in
            if let index = list.firstIndex(where: { $0 === box }) {
                list.remove(at: index)
                found = true
            }
        }
        guard !found else { return }
        for index in builtInListeners.indices {
            if let position = builtInListeners[index].firstIndex(where: { $0 === box }) {
                builtInListeners[index].remove(at: position)
                return
            }
        }
        for name in Array(customListeners.keys) {
            if let position = customListeners[name]?.firstIndex(where: { $0 === box }) {
                customListeners[name]?.remove(at: position)
                if customListeners[name]?.isEmpty == true { customListeners[name] = nil }
                return
            }
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
        let waiters = inbox.withLock { inbox -> [Waiter] in
            inbox.closed = true
            defer { inbox.waiters.removeAll() }
            return inbox.waiters
        }
        for waiter in waiters { waiter.release() }
        closedOnLoop = true
        // Entries queued after the close entry: deliver events (listeners are still here), and
        // release anyone waiting.
        drain()
        let everyone = builtInListeners.flatMap { $0 } + customListeners.values.flatMap { $0 }
        builtInListeners = Self.emptyBuiltInTables
        customListeners.removeAll()
        registry.withLock { $0.removeAll() }
        for box in everyone { box.removed.store(true, ordering: .relaxed) }
        // Streams in the tables end now; one still on its way to them ends when its entry is
        // drained (`add` after the close).
        let finishes = streamFinishes.withLock { finishes in everyone.compactMap { finishes.removeValue(forKey: $0.serial) } }
        for finish in finishes { finish() }
        relay.detach()
        wakeup?.close()
    }
}

/// One registered listener. Created by `listen`, added to the loop's tables through the
/// dispatch queue, and marked removed by `removeListener`. Everything the loop reads per
/// delivery is a `let` (a `var` closure would be retained and released around every call), and
/// the box fits 72 bytes (an 80-byte allocation): its channel travels in the queue entries, and
/// a stream's `finish` is kept by the plugin, not in every box.
private final class HubListenerBox: Sendable {
    /// Which events of the channel the listener gets.
    enum Predicate: Sendable {
        case all
        case eventName(String)
        case filter(HubFilter)
    }

    /// The listener's serial for the slow-listener monitor (never 0).
    let serial: Int
    /// The second half of its token's id (the registry is keyed by the first).
    let idLow: UInt64
    let predicate: Predicate
    /// Set (then published to the loop) by `removeListener`; read with a plain load per delivery.
    /// Declared here, in the byte after `predicate`'s tag.
    let removed = Atomic<Bool>(false)
    let listener: HubListener

    init(serial: Int, idLow: UInt64, predicate: Predicate, listener: @escaping HubListener) {
        self.serial = serial
        self.idLow = idLow
        self.predicate = predicate
        self.listener = listener
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

/// amplify-swift's name for its default Hub plugin: here the same plugin as ``DefaultHubPlugin``.
public typealias AWSHubPlugin = DefaultHubPlugin
