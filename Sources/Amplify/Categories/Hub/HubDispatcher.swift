import AmplifyEventLoop
import CoreMetrics
import Foundation
import Synchronization

/// The Hub's engine: one queue, drained on the loop thread, that carries events and listener
/// registrations alike, so every listener sees exactly the events dispatched after its `listen`
/// returned, in dispatch order.
final class HubDispatcher: @unchecked Sendable {
    // @unchecked Sendable: `builtInListeners`, `customListeners` and `spare` are touched only on
    // the loop thread; `inbox` and `registry` are Mutexes; everything else is immutable or atomic.

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

    let loop: EventLoop
    let monitor: SlowListenerMonitor
    /// `nil` when no metrics backend is bootstrapped: then no metric work at all.
    private let metrics: HubMetrics?
    private let inbox = Locked(Inbox())
    private let registry = Locked<[UUID: HubListenerBox]>([:])
    private let serials = Atomic<Int>(0)
    private let relay: DrainRelay
    private let wakeup: LoopWakeup
    // Loop-thread state. Exclusivity is unchecked: only the loop thread touches these, and the
    // drain loop never holds an access across a listener call that could re-enter it.
    @exclusivity(unchecked) private var builtInListeners = [ContiguousArray<HubListenerBox>](repeating: [], count: 10)
    @exclusivity(unchecked) private var customListeners: [String: ContiguousArray<HubListenerBox>] = [:]
    @exclusivity(unchecked) private var spare: [Entry] = []
    @exclusivity(unchecked) private var closedOnLoop = false
    /// The most entries one drain found waiting (written by the loop, read by anyone).
    private let peakDepth = Atomic<Int>(0)

    init(loop: EventLoop, slowListenerThreshold: Duration, metricsFactory: (any MetricsFactory)? = nil) throws {
        self.loop = loop
        let metrics = HubMetrics.make(metricsFactory)
        self.metrics = metrics
        monitor = SlowListenerMonitor(threshold: slowListenerThreshold, loopName: loop.name, slowListeners: metrics?.slowListeners)
        let relay = DrainRelay()
        self.relay = relay
        wakeup = try LoopWakeup.make(on: loop) { relay.drain() }
        relay.attach(self)
        // If the loop shuts down under the Hub (Amplify.reset() shutting the shared loop down
        // while another thread started a Hub on it), the Hub closes with it: what was queued is
        // delivered, waiters are released, and later calls do not wait for a loop that is gone.
        try? loop.execute { [loop] in loop.onShutdown { relay.loopEnded() } }
    }

    /// Whether the Hub is closed (reset, or its loop shut down).
    var isClosed: Bool { inbox.withLock { $0.closed } }

    // MARK: Any thread

    @inline(__always)
    func dispatch(to channel: HubChannel, payload: consuming HubPayload) {
        enqueue(Entry(channel, payload))
    }

    func listen(
        to channel: HubChannel, eventName: String?, filter: HubFilter?, file: String, line: Int,
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

    func removeListener(_ token: UnsubscribeToken) {
        guard let box = registry.withLock({ $0.removeValue(forKey: token.id) }) else { return }
        box.removed.store(true, ordering: .releasing)
        // After this, the loop's plain load of `removed` sees `true` for every call it has not
        // started yet.
        loop.publishToLoopThread()
        monitor.unregister(serial: box.serial)
        enqueue(Entry(.remove(box)))
    }

    func flush() async {
        if loop.inEventLoop {
            // Waiting here would block the loop that must do the delivering.
            return
        }
        await withCheckedContinuation { continuation in
            if !enqueue(Entry(.flush(continuation))) { continuation.resume() }
        }
    }

    /// Delivers what was dispatched before the call, ends every listener and stream, stops the
    /// monitor and closes the loop handle. Later dispatches are dropped (there is no one left to
    /// receive them).
    func close() async {
        await withCheckedContinuation { continuation in
            if !enqueue(Entry(.close(continuation))) { continuation.resume() }
        }
        monitor.stop()
    }

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
        if outcome == 2 { wakeup.signal() }
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
            if Unmanaged.passUnretained(boxes[index])._withUnsafeGuaranteedRef({ $0.deliver(payload, monitor: monitor) }) { called &+= 1 }
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
        builtInListeners = [ContiguousArray<HubListenerBox>](repeating: [], count: 10)
        customListeners.removeAll()
        registry.withLock { $0.removeAll() }
        for box in everyone {
            box.removed.store(true, ordering: .relaxed)
            box.finish?()
        }
        relay.detach()
        wakeup.close()
    }

    /// The longest the queue has been (dispatched, not yet delivered) when the loop took it.
    var peakQueueDepth: Int { peakDepth.load(ordering: .relaxed) }

    var listenerCount: Int {
        registry.withLock { $0.count }
    }
}

/// Lets the wake-up's callback reach the dispatcher without a retain cycle that outlives close.
private final class DrainRelay: Sendable {
    private let target = Locked<HubDispatcher?>(nil)

    func attach(_ dispatcher: HubDispatcher) { target.withLock { $0 = dispatcher } }
    func detach() { target.withLock { $0 = nil } }
    func drain() { target.withLock { $0 }?.drain() }
    func loopEnded() { target.withLock { $0 }?.loopEnded() }
}
