import AmplifyEventLoop
import Foundation
import Synchronization

/// The Hub's engine: one queue, drained on the loop thread, that carries events and listener
/// registrations alike, so every listener sees exactly the events dispatched after its `listen`
/// returned, in dispatch order.
final class HubDispatcher: @unchecked Sendable {
    // @unchecked Sendable: `builtInListeners`, `customListeners` and `spare` are touched only on
    // the loop thread; `inbox` and `registry` are Mutexes; everything else is immutable or atomic.

    private enum Entry {
        case event(HubChannel, HubPayload)
        case add(HubListenerBox)
        case remove(HubListenerBox)
        case flush(CheckedContinuation<Void, Never>)
        case close(CheckedContinuation<Void, Never>)
    }

    private struct Inbox {
        var entries: [Entry] = []
        var wakeupPending = false
        var closed = false
    }

    let loop: EventLoop
    let monitor: SlowListenerMonitor
    private let inbox = Mutex(Inbox())
    private let registry = Mutex<[UUID: HubListenerBox]>([:])
    private let serials = Atomic<Int>(0)
    private let relay: DrainRelay
    private let wakeup: LoopWakeup
    private var builtInListeners = [ContiguousArray<HubListenerBox>](repeating: [], count: 10)
    private var customListeners: [String: ContiguousArray<HubListenerBox>] = [:]
    private var spare: [Entry] = []
    private var closedOnLoop = false

    init(loop: EventLoop, slowListenerThreshold: Duration) throws {
        self.loop = loop
        monitor = SlowListenerMonitor(threshold: slowListenerThreshold, loopName: loop.name)
        let relay = DrainRelay()
        self.relay = relay
        wakeup = try LoopWakeup.make(on: loop) { relay.drain() }
        relay.attach(self)
    }

    // MARK: Any thread

    @inline(__always)
    func dispatch(to channel: HubChannel, payload: HubPayload) {
        enqueue(.event(channel, payload))
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
        if !enqueue(.add(box)) {
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
        enqueue(.remove(box))
    }

    func flush() async {
        if loop.inEventLoop {
            // Waiting here would block the loop that must do the delivering.
            return
        }
        await withCheckedContinuation { continuation in
            if !enqueue(.flush(continuation)) { continuation.resume() }
        }
    }

    /// Delivers what was dispatched before the call, ends every listener and stream, stops the
    /// monitor and closes the loop handle. Later dispatches are dropped (there is no one left to
    /// receive them).
    func close() async {
        await withCheckedContinuation { continuation in
            if !enqueue(.close(continuation)) { continuation.resume() }
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
        for index in batch.indices {
            switch batch[index] {
            case .event(let channel, let payload): deliver(payload, on: channel)
            case .add(let box): add(box)
            case .remove(let box): remove(box)
            case .flush(let continuation): continuation.resume()
            case .close(let continuation): closeOnLoop(continuation)
            }
        }
        batch.removeAll(keepingCapacity: true)
        spare = batch
    }

    @inline(__always)
    private func deliver(_ payload: HubPayload, on channel: HubChannel) {
        let listeners: ContiguousArray<HubListenerBox>
        if let index = channel.builtInIndex {
            listeners = builtInListeners[index]
        } else if case .custom(let name) = channel, let found = customListeners[name] {
            listeners = found
        } else {
            return
        }
        for box in listeners { box.deliver(payload, monitor: monitor) }
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
        continuation.resume()
    }

    var listenerCount: Int {
        registry.withLock { $0.count }
    }
}

/// Lets the wake-up's callback reach the dispatcher without a retain cycle that outlives close.
private final class DrainRelay: Sendable {
    private let target = Mutex<HubDispatcher?>(nil)

    func attach(_ dispatcher: HubDispatcher) { target.withLock { $0 = dispatcher } }
    func detach() { target.withLock { $0 = nil } }
    func drain() { target.withLock { $0 }?.drain() }
}
