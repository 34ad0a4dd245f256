import Amplify
import AmplifyEventLoop
import AmplifyRedis
import Foundation

/// The bridge's two Redis connections on the loop (one publishes, one subscribes or reads the
/// stream), its queue of events waiting for Redis, and reconnection with backoff. Loop thread
/// only.
///
/// An event counts as sent only when Redis answers its `XADD` / `PUBLISH` with a result: an error
/// reply (`-LOADING` while a restarted Redis replays its data, `-BUSY` while a script runs, or
/// any other) puts it back at the front of the queue, and sending waits, probing with `PING`
/// under the reconnection backoff, until Redis answers again. Such a wait is not a disconnection.
/// The link reports ``Report/connected`` once per connection, when the publisher has answered
/// `PING` and the subscriber's first read (the consumer group's, or the subscription's
/// confirmation) has worked, and ``Report/disconnected`` once per outage.
final class BridgeLink {
    /// What the link tells its plugin.
    enum Report {
        case connected
        case disconnected(String)
        case published
        case dropped(Int)
        /// Redis answered a command with an error reply (`-BUSY`, `-LOADING`, …); it is tried again.
        case refused
    }

    let configuration: RedisHubBridgeConfiguration
    let loop: EventLoop
    /// Called with each event read from Redis and its stream entry id.
    let deliver: (HubWireEvent, String?) -> Void
    let report: (Report) -> Void

    private var publisher: RedisConnection?
    private var subscriber: RedisConnection?
    /// Both connections' TCP handshakes are done (this generation).
    private var transportUp = false
    /// Bumped whenever the connections are replaced or closed: timers of an older pair do nothing.
    private var generation = 0
    /// The publisher answered `PING` on this connection.
    private var publisherChecked = false
    /// The subscriber's first read on this connection worked.
    private var subscriberReading = false
    /// Events go out as they come (the publisher is checked and no error reply is outstanding).
    private var canSend = false
    private var closed = false
    private var reportedUp = false
    private var reportedDown = false
    /// A consumer group was created (or found) once: later creations start from the stream's start.
    private var groupCreated = false
    /// Reconnection attempts since the last ``Report/connected``.
    private var attempt = 0
    /// Consecutive error replies while waiting for Redis on this connection, per connection
    /// (each wait's backoff).
    private var waits: [Side: Int] = [:]
    /// The error reply that paused sending.
    private var pauseReason = ""
    /// The error last logged while waiting, so that a wait is logged once, not per probe.
    private var loggedWait: String?
    private var timers: [Int: LoopTimer] = [:]
    private var nextTimer = 0
    private var outbox: [[UInt8]] = []
    private var outboxHead = 0
    private var inFlight: [[UInt8]] = []
    private var inFlightHead = 0
    /// Events Redis answered with an error reply, in order, until they go back into the queue.
    private var refused: [[UInt8]] = []
    /// Where the next read of the consumer group's pending entries starts (`0`: all of them);
    /// `nil` once they are all read, then new entries are read (`>`).
    private var pendingCursor: String? = "0"
    /// Stream entries delivered but whose `XACK` has not been confirmed, oldest first; sent with
    /// the next read, and never delivered a second time if Redis hands them out again.
    private var unacknowledged: [String] = []
    private var unacknowledgedSet: Set<String> = []

    init(
        configuration: RedisHubBridgeConfiguration, loop: EventLoop, deliver: @escaping (HubWireEvent, String?) -> Void,
        report: @escaping (Report) -> Void
    ) {
        self.configuration = configuration
        self.loop = loop
        self.deliver = deliver
        self.report = report
    }

    // MARK: Connecting

    func start() {
        guard !closed, publisher == nil else { return }
        generation += 1
        let publisher = RedisConnection()
        let subscriber = RedisConnection()
        self.publisher = publisher
        self.subscriber = subscriber
        for connection in [publisher, subscriber] {
            connection.onStateChange = { [unowned self] error in
                if let error { self.lost(error) } else { self.connectedOne() }
            }
        }
        for connection in [publisher, subscriber] {
            if let error = connection.connect(host: configuration.host, port: configuration.port, loop: loop) {
                lost(error)
                return
            }
        }
    }

    /// One connection finished its handshake; once both have, check that Redis answers (it may
    /// still be loading its data) before sending, and start reading.
    private func connectedOne() {
        guard let publisher, let subscriber, publisher.isConnected, subscriber.isConnected, !transportUp else { return }
        transportUp = true
        waits.removeAll()
        probe(publisher, .publisher) { link in
            link.publisherChecked = true
            link.resumeSending()
            link.reportIfUp()
        }
        switch configuration.mode {
        case .pubsub:
            // A refused SUBSCRIBE makes hiredis drop the connection: subscribe once Redis answers.
            probe(subscriber, .subscriber) { link in link.subscribe(subscriber) }
        case .streams:
            createGroup(subscriber, from: groupCreated ? "0" : "$")
        }
    }

    /// Reports ``Report/connected`` once both sides work on this connection.
    private func reportIfUp() {
        guard publisherChecked, subscriberReading, !reportedUp else { return }
        reportedUp = true
        reportedDown = false
        attempt = 0
        loggedWait = nil
        report(.connected)
    }

    /// Sends `PING` on `connection` until Redis answers `PONG` (waiting under the backoff through
    /// `-LOADING`, `-BUSY` or any other error reply), then calls `ready`.
    private func probe(_ connection: RedisConnection, _ side: Side, then ready: @escaping (BridgeLink) -> Void) {
        connection.send([Array("PING".utf8)]) { [unowned self] reply in
            // `nil`: the connection ended first; `lost` takes over.
            guard let reply, connection === publisher || connection === subscriber else { return }
            if let error = reply.errorMessage {
                waitForRedis(error, side) { $0.probe(connection, side, then: ready) }
                return
            }
            waits[side] = nil
            ready(self)
        }
    }

    /// Which connection waits for Redis.
    private enum Side { case publisher, subscriber }

    /// Redis answered with an error reply instead of doing the work: log it once per wait and
    /// try `again` after the backoff, on the same connection.
    private func waitForRedis(_ error: String, _ side: Side, doing what: String = "", again: @escaping (BridgeLink) -> Void) {
        let kind = String(error.prefix { $0 != " " })
        if loggedWait != kind {
            loggedWait = kind
            let logger = Amplify.Logging.logger(forCategory: "Hub")
            if kind == "LOADING" || kind == "BUSY" {
                logger.info("Redis answered \(error)\(what); the Redis Hub bridge waits for it and keeps the events to send.")
            } else {
                logger.error("Redis refused the Redis Hub bridge's command\(what): \(error); retrying with backoff, events kept.")
            }
        }
        report(.refused)
        let attempt = waits[side, default: 0]
        waits[side] = attempt + 1
        after(backoff(attempt), again)
    }

    /// The reconnection delay for `attempt`: `reconnectDelay` doubling up to `maxReconnectDelay`,
    /// with jitter.
    private func backoff(_ attempt: Int) -> Double {
        let base = Double(configuration.reconnectDelay.components.seconds) + Double(configuration.reconnectDelay.components.attoseconds) / 1e18
        let cap = Double(configuration.maxReconnectDelay.components.seconds) + Double(configuration.maxReconnectDelay.components.attoseconds) / 1e18
        return min(cap, base * pow(2, Double(min(attempt, 20)))) * Double.random(in: 0.5...1)
    }

    /// Runs `body` after `seconds` on the loop, unless the connections were replaced or closed
    /// meanwhile.
    private func after(_ seconds: Double, _ body: @escaping (BridgeLink) -> Void) {
        let id = nextTimer
        nextTimer += 1
        let generation = self.generation
        let bound = LoopBound((link: self, body: body), loop: loop)
        guard
            let timer = try? loop.scheduleTimer(
                after: .saturatingSeconds(seconds),
                {
                    let (link, body) = bound.value
                    link.timers[id] = nil
                    guard !link.closed, link.generation == generation else { return }
                    body(link)
                })
        else { return }
        timers[id] = timer
    }

    private func cancelTimers() {
        for timer in timers.values { timer.cancel() }
        timers.removeAll()
    }

    /// A connection failed or ended: close both, keep what was not confirmed, try again later.
    private func lost(_ reason: String) {
        guard !closed, publisher != nil || subscriber != nil else { return }
        generation += 1
        cancelTimers()
        transportUp = false
        publisherChecked = false
        subscriberReading = false
        canSend = false
        publisher?.close()
        subscriber?.close()
        publisher = nil
        subscriber = nil
        // Events Redis refused go back to the queue in both modes (an error reply means not
        // done). In streams mode, events sent but not confirmed do too (at least once). Pub/sub is
        // at most once: an unconfirmed PUBLISH may have gone out, so it is not sent again.
        let unconfirmed = refused + (configuration.mode == .streams ? Array(inFlight[inFlightHead...]) : [])
        refused.removeAll()
        inFlight.removeAll()
        inFlightHead = 0
        outbox = unconfirmed + outbox[outboxHead...]
        outboxHead = 0
        trimOutbox()
        if reportedUp || !reportedDown {
            reportedUp = false
            reportedDown = true
            report(.disconnected(reason))
        }
        let delay = backoff(attempt)
        attempt += 1
        let me = LoopBound(self, loop: loop)
        let generation = self.generation
        if let timer = try? loop.scheduleTimer(
            after: .saturatingSeconds(delay),
            {
                let link = me.value
                link.timers[-1] = nil
                guard !link.closed, link.generation == generation else { return }
                link.start()
            })
        {
            timers[-1] = timer
        }
    }

    /// Frees both connections and stops reconnecting; events still queued are dropped (counted).
    func close() {
        closed = true
        generation += 1
        cancelTimers()
        publisher?.close()
        subscriber?.close()
        publisher = nil
        subscriber = nil
        let left = (outbox.count - outboxHead) + (inFlight.count - inFlightHead) + refused.count
        if left > 0 { report(.dropped(left)) }
    }

    // MARK: Publishing

    func publish(_ message: [UInt8]) {
        guard !closed else { return }
        if canSend, outboxHead == outbox.count {
            send(message)
            return
        }
        outbox.append(message)
        trimOutbox()
    }

    /// Keeps at most `maxQueuedEvents` events waiting; the oldest beyond it are dropped (counted).
    private func trimOutbox() {
        let queued = outbox.count - outboxHead
        if queued > configuration.maxQueuedEvents {
            let excess = queued - configuration.maxQueuedEvents
            outboxHead += excess
            report(.dropped(excess))
        }
        if outboxHead > 4096, outboxHead * 2 > outbox.count {
            outbox.removeFirst(outboxHead)
            outboxHead = 0
        }
    }

    /// The publisher answers: send what waited.
    private func resumeSending() {
        canSend = true
        if reportedUp { loggedWait = nil }
        while canSend, outboxHead < outbox.count {
            send(outbox[outboxHead])
            outboxHead += 1
        }
        if canSend {
            outbox.removeAll(keepingCapacity: true)
            outboxHead = 0
        }
    }

    private func send(_ message: [UInt8]) {
        guard let publisher else { return }
        let arguments: [[UInt8]] =
            switch configuration.mode {
            case .pubsub: [Array("PUBLISH".utf8), Array(configuration.key.utf8), message]
            case .streams:
                [
                    Array("XADD".utf8), Array(configuration.key.utf8), Array("MAXLEN".utf8), Array("~".utf8),
                    Array(String(configuration.maxStreamLength).utf8), Array("*".utf8), Array("e".utf8), message,
                ]
            }
        inFlight.append(message)
        publisher.send(arguments) { [unowned self] reply in
            // `nil`: the connection ended first; `lost` already put the event back in the queue.
            guard let reply else { return }
            let message = inFlight[inFlightHead]
            inFlightHead += 1
            if let error = reply.errorMessage {
                // Not done: keep it (in order) and stop sending until Redis answers again.
                refused.append(message)
                if canSend {
                    canSend = false
                    pauseReason = error
                }
            } else {
                report(.published)
            }
            if inFlightHead == inFlight.count {
                inFlight.removeAll(keepingCapacity: true)
                inFlightHead = 0
                if !refused.isEmpty { requeueRefused(publisher) }
            } else if inFlightHead > 4096, inFlightHead * 2 > inFlight.count {
                inFlight.removeFirst(inFlightHead)
                inFlightHead = 0
            }
        }
    }

    /// Every reply of the paused pipeline is in: the refused events go back to the front of the
    /// queue, and sending resumes once the publisher answers `PING` again.
    private func requeueRefused(_ publisher: RedisConnection) {
        outbox = refused + outbox[outboxHead...]
        outboxHead = 0
        refused.removeAll()
        trimOutbox()
        waitForRedis(pauseReason, .publisher, doing: " to an event") { link in
            link.probe(publisher, .publisher) { $0.resumeSending() }
        }
    }

    // MARK: Receiving

    private func subscribe(_ subscriber: RedisConnection) {
        subscriber.subscribe(configuration.key) { [unowned self] reply in
            guard let parts = reply?.elements, parts.count == 3 else { return }
            if parts[0].text == "subscribe" {
                subscriberReading = true
                reportIfUp()
                return
            }
            guard parts[0].text == "message", let body = parts[2].text else { return }
            receive(Array(body.utf8), entryId: nil)
        }
    }

    private func createGroup(_ subscriber: RedisConnection, from start: String) {
        let arguments = ["XGROUP", "CREATE", configuration.key, configuration.consumerGroup, start, "MKSTREAM"].map { Array($0.utf8) }
        subscriber.send(arguments) { [unowned self] reply in
            guard let reply, subscriber === self.subscriber else { return }
            if let error = reply.errorMessage, !error.hasPrefix("BUSYGROUP") {
                waitForRedis(error, .subscriber, doing: " to XGROUP CREATE") { $0.createGroup(subscriber, from: start) }
                return
            }
            waits[.subscriber] = nil
            groupCreated = true
            pendingCursor = "0"
            read(subscriber)
        }
    }

    /// Reads the group's entries: first those delivered before but never acknowledged (from id
    /// `0`, batch after batch), then new ones (`>`), acknowledging each batch once it is dispatched (the `XACK` goes out
    /// just before the next read).
    private func read(_ subscriber: RedisConnection) {
        if !unacknowledged.isEmpty {
            let ids = unacknowledged
            subscriber.send(
                [Array("XACK".utf8), Array(configuration.key.utf8), Array(configuration.consumerGroup.utf8)] + ids.map { Array($0.utf8) }
            ) {
                [unowned self] reply in
                // Kept on an error reply (or a lost connection): sent again with the next read.
                guard let reply, reply.errorMessage == nil, unacknowledged.starts(with: ids) else { return }
                unacknowledged.removeFirst(ids.count)
                unacknowledgedSet.subtract(ids)
            }
        }
        let arguments = [
            "XREADGROUP", "GROUP", configuration.consumerGroup, "bridge", "COUNT", "512", "BLOCK", "0",
            "STREAMS", configuration.key, pendingCursor ?? ">",
        ].map { Array($0.utf8) }
        subscriber.send(arguments) { [unowned self] reply in
            guard let reply, !closed, subscriber === self.subscriber else { return }
            if let error = reply.errorMessage {
                if error.hasPrefix("NOGROUP") {
                    // The stream went away (Redis restarted without persistence): everything in
                    // the new stream is new to us.
                    createGroup(subscriber, from: "0")
                } else {
                    waitForRedis(error, .subscriber, doing: " to XREADGROUP") { $0.read(subscriber) }
                }
                return
            }
            waits[.subscriber] = nil
            if !subscriberReading {
                subscriberReading = true
                reportIfUp()
            }
            let entries = reply.elements?.first?.elements?.last?.elements ?? []
            if pendingCursor != nil {
                pendingCursor = entries.last?.elements?.first?.text
            }
            for entry in entries {
                guard let parts = entry.elements, parts.count == 2, let id = parts[0].text else { continue }
                // Delivered already, its XACK not yet confirmed: acknowledge, do not deliver again.
                guard !unacknowledgedSet.contains(id) else { continue }
                unacknowledged.append(id)
                unacknowledgedSet.insert(id)
                let fields = parts[1].elements ?? []
                var index = 0
                while index + 1 < fields.count {
                    if fields[index].text == "e", let body = fields[index + 1].text { receive(Array(body.utf8), entryId: id) }
                    index += 2
                }
            }
            if unacknowledged.count > Self.maxUnacknowledged {
                let excess = unacknowledged.count - Self.maxUnacknowledged
                unacknowledgedSet.subtract(unacknowledged[..<excess])
                unacknowledged.removeFirst(excess)
            }
            read(subscriber)
        }
    }

    /// Entry ids remembered while their `XACK` fails (beyond it the oldest may be delivered again).
    private static let maxUnacknowledged = 100_000

    private func receive(_ body: [UInt8], entryId: String?) {
        guard let event = try? JSONDecoder().decode(HubWireEvent.self, from: Data(body)) else {
            Amplify.Logging.logger(forCategory: "Hub").warn("Ignored a Redis message that is not a Hub event (\(body.count) bytes).")
            return
        }
        deliver(event, entryId)
    }
}
