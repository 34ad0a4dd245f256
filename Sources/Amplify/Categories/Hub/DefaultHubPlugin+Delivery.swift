import AmplifyConcurrency
import Synchronization

/// The loop side of ``DefaultHubPlugin``: the listener tables (touched only on the loop thread),
/// the drain that swaps the inbox out and applies each entry in order, delivery to the listeners
/// of an event's channel, and closing.
extension DefaultHubPlugin {
    // MARK: Loop thread

    func drain() {
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
    func loopEnded() {
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

/// Lets the wake-up's callback reach the plugin without a retain cycle that outlives close.
final class DrainRelay: Sendable {
    private let target = Locked<DefaultHubPlugin?>(nil)

    func attach(_ hub: DefaultHubPlugin) { target.withLock { $0 = hub } }
    func detach() { target.withLock { $0 = nil } }
    func drain() { target.withLock { $0 }?.drain() }
    func loopEnded() { target.withLock { $0 }?.loopEnded() }
}
