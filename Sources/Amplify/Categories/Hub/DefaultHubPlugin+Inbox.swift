import AmplifyConcurrency
import Foundation
import Synchronization

/// The inbox of ``DefaultHubPlugin``: the one queue every thread appends to (events, listener
/// changes, flush and close barriers), the producers waiting for room in it, and the overload
/// reports. Appending takes the queue's lock; the loop empties it in `drain()`
/// (DefaultHubPlugin+Delivery.swift).
extension DefaultHubPlugin {
    /// A queue entry: an event, or (rarely) a change to the listener tables or a barrier, which
    /// travel in the same queue so they take effect at exactly their place among the events.
    /// A struct, not an enum with payloads, so that queueing and draining copy plainly.
    struct Entry: Sendable {
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

    enum Control: Sendable {
        case add(HubListenerBox)
        case remove(HubListenerBox)
        case flush(CheckedContinuation<Void, Never>)
        case close(CheckedContinuation<Void, Never>)
    }

    final class ControlBox: Sendable {
        let control: Control
        init(_ control: Control) { self.control = control }
    }

    struct Inbox {
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

    /// What appending to the queue did.
    enum EnqueueOutcome {
        /// The Hub is closed: nothing was queued (the category replaces a closed default plugin).
        case closed
        /// Queued behind entries the loop has already been woken for.
        case queued
        /// Queued into an empty queue: the loop's wake-up is to be signalled.
        case queuedWakingLoop
        /// An event for a built-in channel nobody listens on: counted, not queued.
        case nobodyListens
        /// The queue is full: the event waits for room (`enqueueOverloaded`), then is queued.
        case overloaded
    }

    /// A producer waiting for room: a task suspended in ``dispatchWaitingForRoom(to:payload:)``, or
    /// a thread blocked in ``dispatch(to:payload:)`` for at most ``overloadWait``.
    enum Waiter: Sendable {
        case task(CheckedContinuation<Void, Never>)
        case thread(DispatchSemaphore)

        func release() {
            switch self {
            case .task(let continuation): continuation.resume()
            case .thread(let semaphore): semaphore.signal()
            }
        }
    }

    // MARK: Any thread

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
        let outcome = inbox.withLock { inbox -> EnqueueOutcome in
            if inbox.closed { return .closed }
            if inbox.nobodyListens(on: channel) { return .nobodyListens }
            if inbox.entries.count >= limit.load(ordering: .relaxed) { return .overloaded }
            inbox.entries.append(entry)
            if inbox.wakeupPending { return .queued }
            inbox.wakeupPending = true
            return .queuedWakingLoop
        }
        switch outcome {
        case .closed: return false
        case .queued: return true
        case .queuedWakingLoop:
            wakeup?.signal()
            return true
        case .nobodyListens:
            metrics?.dispatched.increment()
            return true
        case .overloaded:
            return enqueueOverloaded(entry)
        }
    }

    /// Appends to the queue; `false` if the Hub is closed.
    @discardableResult
    @inline(__always)
    func enqueue(_ entry: Entry) -> Bool {
        let outcome = inbox.withLock { inbox -> EnqueueOutcome in
            if inbox.closed { return .closed }
            if let box = entry.control {
                inbox.count(box.control, on: entry.channel)
            } else if inbox.nobodyListens(on: entry.channel) {
                return .nobodyListens
            }
            inbox.entries.append(entry)
            if inbox.wakeupPending { return .queued }
            inbox.wakeupPending = true
            return .queuedWakingLoop
        }
        switch outcome {
        case .closed: return false
        // (`.overloaded` is not produced here: a control entry, or an event past its wait for
        // room, is queued whatever the queue's length.)
        case .queued, .overloaded: return true
        case .queuedWakingLoop:
            wakeup?.signal()
            return true
        case .nobodyListens:
            metrics?.dispatched.increment()
            return true
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
        let message =
            "The Hub is overloaded: \(what); the loop is behind, delivering to \(culprit). Nothing is dropped; producers are slowed. Move heavy work out of listeners (Amplify.Hub.events(on:) or a Task), or raise maxQueuedEvents."
        lastReport.withLock { $0 = message }
        Amplify.Logging.logger(forCategory: "Hub").error(message)
    }
}
