import Amplify
import AmplifyEventLoop
import Foundation

/// A value that is only ever touched on one event loop's thread.
final class LoopBound<Value>: @unchecked Sendable {
    // @unchecked Sendable: created anywhere, then read and mutated on the loop thread only
    // (every use goes through `loop.execute` or a loop callback).
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// The bridge's two Redis connections on the loop (one publishes, one subscribes or reads the
/// stream), its queue of events waiting for Redis, and reconnection with backoff. Loop thread
/// only.
final class BridgeLink {
    /// What the link tells its plugin.
    enum Report {
        case connected
        case disconnected(String)
        case published
        case dropped(Int)
    }

    let configuration: RedisHubBridgeConfiguration
    let loop: EventLoop
    /// Called with each event read from Redis and its stream entry id.
    let deliver: (HubWireEvent, String?) -> Void
    let report: (Report) -> Void

    private var publisher: RedisConnection?
    private var subscriber: RedisConnection?
    private var ready = false
    private var closed = false
    private var reportedDown = false
    private var everConnected = false
    private var attempt = 0
    private var reconnectTimer: LoopTimer?
    private var outbox: [[UInt8]] = []
    private var outboxHead = 0
    private var inFlight: [[UInt8]] = []
    private var inFlightHead = 0
    private var readingPending = true

    init(configuration: RedisHubBridgeConfiguration, loop: EventLoop, deliver: @escaping (HubWireEvent, String?) -> Void, report: @escaping (Report) -> Void) {
        self.configuration = configuration
        self.loop = loop
        self.deliver = deliver
        self.report = report
    }

    // MARK: Connecting

    func start() {
        guard !closed, publisher == nil else { return }
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

    private func connectedOne() {
        guard let publisher, let subscriber, publisher.isConnected, subscriber.isConnected, !ready else { return }
        ready = true
        reportedDown = false
        attempt = 0
        report(.connected)
        switch configuration.mode {
        case .pubsub: subscribe(subscriber)
        case .streams: createGroup(subscriber, from: everConnected ? "0" : "$")
        }
        everConnected = true
        flushOutbox()
    }

    /// A connection failed or ended: close both, keep what was not confirmed, try again later.
    private func lost(_ reason: String) {
        guard !closed, publisher != nil || subscriber != nil else { return }
        ready = false
        publisher?.close()
        subscriber?.close()
        publisher = nil
        subscriber = nil
        // Streams mode: events sent but not confirmed go back to the front of the queue (at least
        // once). Pub/sub is at most once: an unconfirmed PUBLISH may have gone out, so it is not
        // sent again.
        let unconfirmed = configuration.mode == .streams ? Array(inFlight[inFlightHead...]) : []
        inFlight.removeAll()
        inFlightHead = 0
        outbox = unconfirmed + outbox[outboxHead...]
        outboxHead = 0
        if !reportedDown {
            reportedDown = true
            report(.disconnected(reason))
        }
        let base = Double(configuration.reconnectDelay.components.seconds) + Double(configuration.reconnectDelay.components.attoseconds) / 1e18
        let cap = Double(configuration.maxReconnectDelay.components.seconds) + Double(configuration.maxReconnectDelay.components.attoseconds) / 1e18
        let delay = min(cap, base * pow(2, Double(min(attempt, 20)))) * Double.random(in: 0.5...1)
        attempt += 1
        let me = LoopBound(self)
        reconnectTimer = try? loop.scheduleTimer(after: .saturatingSeconds(delay)) {
            me.value.reconnectTimer = nil
            me.value.start()
        }
    }

    /// Frees both connections and stops reconnecting; events still queued are dropped (counted).
    func close() {
        closed = true
        reconnectTimer?.cancel()
        reconnectTimer = nil
        publisher?.close()
        subscriber?.close()
        publisher = nil
        subscriber = nil
        let left = (outbox.count - outboxHead) + (inFlight.count - inFlightHead)
        if left > 0 { report(.dropped(left)) }
    }

    // MARK: Publishing

    func publish(_ message: [UInt8]) {
        guard !closed else { return }
        if ready, outboxHead == outbox.count {
            send(message)
            return
        }
        outbox.append(message)
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

    private func flushOutbox() {
        while ready, outboxHead < outbox.count {
            send(outbox[outboxHead])
            outboxHead += 1
        }
        if ready {
            outbox.removeAll(keepingCapacity: true)
            outboxHead = 0
        }
    }

    private func send(_ message: [UInt8]) {
        guard let publisher else { return }
        let arguments: [[UInt8]] = switch configuration.mode {
        case .pubsub: [Array("PUBLISH".utf8), Array(configuration.key.utf8), message]
        case .streams:
            [Array("XADD".utf8), Array(configuration.key.utf8), Array("MAXLEN".utf8), Array("~".utf8),
             Array(String(configuration.maxStreamLength).utf8), Array("*".utf8), Array("e".utf8), message]
        }
        inFlight.append(message)
        publisher.send(arguments) { [unowned self] reply in
            // `nil`: the connection ended first; `lost` already put the event back in the queue.
            guard let reply else { return }
            inFlightHead += 1
            if inFlightHead > 4096, inFlightHead * 2 > inFlight.count {
                inFlight.removeFirst(inFlightHead)
                inFlightHead = 0
            }
            if let error = reply.errorMessage {
                Amplify.Logging.logger(forCategory: "Hub").error("Redis refused a Hub event: \(error)")
            } else {
                report(.published)
            }
        }
    }

    // MARK: Receiving

    private func subscribe(_ subscriber: RedisConnection) {
        subscriber.subscribe(configuration.key) { [unowned self] reply in
            guard let parts = reply?.elements, parts.count == 3, parts[0].text == "message", let body = parts[2].text else { return }
            receive(Array(body.utf8), entryId: nil)
        }
    }

    private func createGroup(_ subscriber: RedisConnection, from start: String) {
        let arguments = ["XGROUP", "CREATE", configuration.key, configuration.consumerGroup, start, "MKSTREAM"].map { Array($0.utf8) }
        subscriber.send(arguments) { [unowned self] reply in
            guard let reply else { return }
            if let error = reply.errorMessage, !error.hasPrefix("BUSYGROUP") {
                lost("XGROUP CREATE failed: \(error)")
                return
            }
            readingPending = true
            read(subscriber)
        }
    }

    /// Reads the group's entries: first those delivered before but never acknowledged (id `0`),
    /// then new ones (`>`), acknowledging each batch once it is dispatched.
    private func read(_ subscriber: RedisConnection) {
        let arguments = ["XREADGROUP", "GROUP", configuration.consumerGroup, "bridge", "COUNT", "512", "BLOCK", "0",
                         "STREAMS", configuration.key, readingPending ? "0" : ">"].map { Array($0.utf8) }
        subscriber.send(arguments) { [unowned self] reply in
            guard let reply, !closed else { return }
            if let error = reply.errorMessage {
                if error.hasPrefix("NOGROUP") {
                    // The stream went away (Redis restarted without persistence): everything in
                    // the new stream is new to us.
                    createGroup(subscriber, from: "0")
                } else {
                    lost("XREADGROUP failed: \(error)")
                }
                return
            }
            let entries = reply.elements?.first?.elements?.last?.elements ?? []
            if readingPending, entries.isEmpty { readingPending = false }
            var ids: [[UInt8]] = []
            for entry in entries {
                guard let parts = entry.elements, parts.count == 2, let id = parts[0].text else { continue }
                ids.append(Array(id.utf8))
                let fields = parts[1].elements ?? []
                var index = 0
                while index + 1 < fields.count {
                    if fields[index].text == "e", let body = fields[index + 1].text { receive(Array(body.utf8), entryId: id) }
                    index += 2
                }
            }
            if !ids.isEmpty {
                subscriber.send([Array("XACK".utf8), Array(configuration.key.utf8), Array(configuration.consumerGroup.utf8)] + ids)
            }
            read(subscriber)
        }
    }

    private func receive(_ body: [UInt8], entryId: String?) {
        guard let event = try? JSONDecoder().decode(HubWireEvent.self, from: Data(body)) else {
            Amplify.Logging.logger(forCategory: "Hub").warn("Ignored a Redis message that is not a Hub event (\(body.count) bytes).")
            return
        }
        deliver(event, entryId)
    }
}
