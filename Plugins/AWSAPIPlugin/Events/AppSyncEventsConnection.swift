import AWSPluginsCore
import Amplify
import AmplifyEventLoop
import AmplifyWebSocket
import Foundation

/// One WebSocket to an AppSync Events API's real-time endpoint for one connect auth mode, shared
/// by the channels that use it (subprotocols `aws-appsync-event-ws` and
/// `header-<base64url auth>`): `connection_init` → `connection_ack` (its `connectionTimeoutMs`
/// bounds the silence between `ka` messages); `subscribe` → `subscribe_success` |
/// `subscribe_error`, then `data`; `publish` → `publish_success` | `publish_error`;
/// `unsubscribe`.
///
/// A drop, a close, a `ka` that does not come, or an acknowledgement that does not come make it
/// reconnect with jittered exponential backoff and fresh authorization (the connection's, and
/// each subscription's before it subscribes again), subscribe every live subscription again (each
/// reports `connecting`, then `connected`), and send the publishes not yet sent. A publish has one
/// deadline from its call (the acknowledgement timeout): one that was sent and not answered by
/// then, or when the socket went, fails saying AppSync may or may not have delivered it, rather
/// than leaving the caller to guess. The socket stays open while a channel holds it, a
/// subscription lives, or a publish waits.
///
/// Loop thread only.
final class AppSyncEventsConnection: @unchecked Sendable {
    // @unchecked Sendable: every field is read and written on the loop thread only; the Tasks
    // that fetch authorization hop back with `loop.execute` before touching anything.

    private enum State {
        case idle, preparing, connecting, initializing, ready, closing, waitingToRetry, shutDown
    }

    private enum Phase {
        /// Waiting for the socket.
        case pending
        /// Fetching its authorization again (after a reconnect).
        case authorizing
        /// `subscribe` sent, waiting for `subscribe_success`.
        case subscribing
        case subscribed
    }

    private struct Entry {
        let subscription: EventsSubscription
        var phase: Phase
        /// What its `subscribe` is authorized with: fetched when it was made, and again before
        /// each resubscribe after a reconnect.
        var authorization: PreparedAuthorization
        var stale = false
    }

    private struct Waiting {
        let publish: EventsPublish
        var sent: Bool
        var timer: LoopTimer?
    }

    /// The connect auth mode's authorization, fetched anew for each attempt (`true`: refreshed
    /// after a refusal).
    typealias Authorize = @Sendable (_ forceRefresh: Bool) async throws -> PreparedAuthorization

    private let loop: EventLoop
    private let endpoint: APIEndpointConfiguration
    private let authorize: Authorize
    private let options: AWSAPIPlugin.Options
    private let onIdle: () -> Void
    private let logger = Amplify.Logging.logger(forCategory: "API")

    private var state = State.idle
    private var socket: WebSocketClient?
    private var authorization: PreparedAuthorization?
    /// Channels that hold the socket open (by channel id).
    private var holders = Set<String>()
    /// `connect` calls waiting for the first `connection_ack`.
    private var waiters: [(channel: String, ready: (Result<Void, APIError>) -> Void)] = []
    private var entries: [String: Entry] = [:]
    private var order: [String] = []
    private var publishes: [String: Waiting] = [:]
    private var publishOrder: [String] = []
    private var failedAttempts = 0
    private var authorizationRefusals = 0
    private var keepAliveTimeout: Duration = .seconds(300)
    private var keepAliveTimer: LoopTimer?
    private var acknowledgementTimer: LoopTimer?
    private var retryTimer: LoopTimer?
    private var subscribeTimers: [String: LoopTimer] = [:]
    /// Bumped for each socket and each authorization fetch: events of an older one are ignored.
    private var generation = 0
    /// Subscriptions holding events decoded this loop turn, flushed at its end.
    private lazy var turnEnd = TurnEndFlusher(loop: loop)

    init(
        loop: EventLoop, endpoint: APIEndpointConfiguration, authorize: @escaping Authorize, options: AWSAPIPlugin.Options,
        onIdle: @escaping () -> Void
    ) {
        self.loop = loop
        self.endpoint = endpoint
        self.authorize = authorize
        self.options = options
        self.onIdle = onIdle
    }

    private var name: String { "the Events connection to '\(endpoint.name)'" }

    // MARK: Channels

    /// Holds the socket open for `channel`, opening it if needed; `ready` runs once AppSync has
    /// acknowledged it (at once when it already has), or with the error of the first attempt.
    func hold(for channel: String, ready: @escaping (Result<Void, APIError>) -> Void) {
        guard state != .shutDown else {
            ready(.failure(.operationError("The API plugin was reset.", "Configure Amplify again.")))
            return
        }
        holders.insert(channel)
        if state == .ready {
            ready(.success(()))
            return
        }
        waiters.append((channel, ready))
        if state == .idle { prepareAndOpen() }
    }

    /// A `connect` whose task was cancelled stops waiting (with an error) and lets go.
    func cancelWait(_ channel: String) {
        guard let index = waiters.firstIndex(where: { $0.channel == channel }) else { return }
        let waiter = waiters.remove(at: index)
        holders.remove(channel)
        waiter.ready(.failure(.operationError("The connect was cancelled.", "")))
        closeIfUnused()
    }

    /// Lets go of the socket for `channel` and stops its subscriptions; the socket closes when
    /// nothing else holds it.
    func release(_ channel: String, subscriptions: [String]) {
        holders.remove(channel)
        for id in subscriptions { stop(id, closing: false) }
        closeIfUnused()
    }

    // MARK: Subscriptions

    /// Adds a subscription: subscribed at once when the socket is ready, else when it is.
    func add(_ subscription: EventsSubscription) {
        guard state != .shutDown else {
            subscription.fail(.operationError("The API plugin was reset.", "Configure Amplify again."))
            return
        }
        entries[subscription.id] = Entry(subscription: subscription, phase: .pending, authorization: subscription.authorization)
        order.append(subscription.id)
        subscription.state(.connecting)
        switch state {
        case .ready: subscribe(subscription.id)
        case .idle: prepareAndOpen()
        case .preparing, .connecting, .initializing, .waitingToRetry, .closing, .shutDown: break
        }
    }

    /// Stops a subscription (its sequence was cancelled, or its channel closed).
    func stop(_ id: String, closing: Bool = true) {
        guard let entry = entries.removeValue(forKey: id) else { return }
        order.removeAll { $0 == id }
        subscribeTimers.removeValue(forKey: id)?.cancel()
        if state == .ready, entry.phase == .subscribing || entry.phase == .subscribed {
            send(["type": "unsubscribe", "id": .string(id)])
        }
        entry.subscription.state(.disconnected)
        entry.subscription.complete()
        if closing { closeIfUnused() }
    }

    /// Subscribes `id` now (fetching its authorization again first when a reconnect made it
    /// stale); AppSync must acknowledge within the acknowledgement timeout, fetch included.
    private func subscribe(_ id: String) {
        guard var entry = entries[id] else { return }
        subscribeTimers[id] = schedule(options.acknowledgementTimeout) { connection in
            guard let entry = connection.entries.removeValue(forKey: id) else { return }
            connection.order.removeAll { $0 == id }
            connection.subscribeTimers[id] = nil
            // A late subscribe_success would start a stream nobody reads.
            if connection.state == .ready, entry.phase == .subscribing { connection.send(["type": "unsubscribe", "id": .string(id)]) }
            entry.subscription.state(.disconnected)
            entry.subscription.fail(
                .networkError(
                    "AppSync did not acknowledge the subscription to \(entry.subscription.channel) within \(connection.options.acknowledgementTimeout)."
                ))
            connection.closeIfUnused()
        }
        guard entry.stale else {
            sendSubscribe(id)
            return
        }
        entry.phase = .authorizing
        entries[id] = entry
        let generation = self.generation
        let authorize = entry.subscription.authorize
        let loop = self.loop
        let connection = ConnectionReference(self)
        Task {
            let result: Result<PreparedAuthorization, APIError>
            do {
                result = .success(try await authorize())
            } catch {
                result = .failure(error as? APIError ?? .operationError("\(error)", "", error))
            }
            try? loop.execute {
                guard let connection = connection.value, connection.generation == generation, connection.state == .ready,
                    var entry = connection.entries[id], entry.phase == .authorizing
                else { return }
                switch result {
                case .success(let authorization):
                    entry.authorization = authorization
                    entry.stale = false
                    connection.entries[id] = entry
                    connection.sendSubscribe(id)
                case .failure(let error):
                    connection.entries[id] = nil
                    connection.order.removeAll { $0 == id }
                    connection.subscribeTimers.removeValue(forKey: id)?.cancel()
                    entry.subscription.state(.disconnected)
                    entry.subscription.fail(error)
                    connection.closeIfUnused()
                }
            }
        }
    }

    private func sendSubscribe(_ id: String) {
        guard var entry = entries[id] else { return }
        let channel = entry.subscription.channel
        let headers = entry.authorization.eventsHeaders(endpoint: endpoint, body: EventsMessageBody.subscribe(channel: channel))
        send(["type": "subscribe", "id": .string(id), "channel": .string(channel), "authorization": .object(headers.mapValues(JSONValue.string))])
        entry.phase = .subscribing
        entries[id] = entry
    }

    // MARK: Publishing

    /// Sends a publish now when the socket is ready, else once it is; its answer (or failure)
    /// goes to its `finish`.
    func publish(_ publish: EventsPublish) {
        guard state != .shutDown else {
            publish.finish(.failure(.operationError("The API plugin was reset.", "Configure Amplify again.")))
            return
        }
        let id = publish.id
        let channel = publish.channel
        // One deadline from the call: not sent by then (the socket is down) or not answered.
        let timer = schedule(options.acknowledgementTimeout) { connection in
            let sent = connection.publishes[id]?.sent == true
            connection.finishPublish(
                id,
                .failure(
                    .networkError(
                        sent
                            ? "AppSync did not answer the publish to \(channel) within \(connection.options.acknowledgementTimeout); its events may or may not have been delivered."
                            : "The publish to \(channel) could not be sent within \(connection.options.acknowledgementTimeout): the connection to '\(connection.endpoint.name)' is not up."
                    )))
        }
        publishes[id] = Waiting(publish: publish, sent: false, timer: timer)
        publishOrder.append(id)
        switch state {
        case .ready: sendPublish(publish.id)
        case .idle: prepareAndOpen()
        case .preparing, .connecting, .initializing, .waitingToRetry, .closing, .shutDown: break
        }
    }

    private func sendPublish(_ id: String) {
        guard var waiting = publishes[id], !waiting.sent else { return }
        let publish = waiting.publish
        let body = EventsMessageBody.publish(channel: publish.channel, events: publish.events)
        let headers = publish.authorization.eventsHeaders(endpoint: endpoint, body: body)
        send([
            "type": "publish", "id": .string(id), "channel": .string(publish.channel), "events": .array(publish.events.map(JSONValue.string)),
            "authorization": .object(headers.mapValues(JSONValue.string)),
        ])
        waiting.sent = true
        publishes[id] = waiting
    }

    /// A publish whose task was cancelled fails now (if it was sent, AppSync may still deliver it).
    func cancelPublish(_ id: String) {
        finishPublish(id, .failure(.operationError("The publish was cancelled.", "")))
    }

    private func finishPublish(_ id: String, _ result: Result<EventsPublishResult, APIError>) {
        guard let waiting = publishes.removeValue(forKey: id) else { return }
        publishOrder.removeAll { $0 == id }
        waiting.timer?.cancel()
        waiting.publish.finish(result)
        closeIfUnused()
    }

    // MARK: Lifecycle

    private var isUnused: Bool { holders.isEmpty && entries.isEmpty && publishes.isEmpty && waiters.isEmpty }

    private func closeIfUnused() {
        guard isUnused else { return }
        switch state {
        case .ready, .initializing, .connecting:
            state = .closing
            cancelTimers()
            if let socket { socket.close(code: 1000, reason: "") } else { becomeIdle() }
        case .preparing, .waitingToRetry:
            cancelTimers()
            becomeIdle()
        case .idle, .closing, .shutDown:
            break
        }
    }

    private func becomeIdle() {
        closeTurnEnd()
        state = .idle
        socket = nil
        failedAttempts = 0
        authorizationRefusals = 0
        onIdle()
    }

    /// Ends every subscription, fails every waiting publish and closes the socket at once;
    /// `reason` is the waiting calls' error.
    func shutdown(reason: String = "The API plugin was reset.") {
        let subscriptions = order.compactMap { entries[$0]?.subscription }
        let waiting = publishOrder.compactMap { publishes[$0] }
        let connects = waiters
        entries.removeAll()
        order.removeAll()
        publishes.removeAll()
        publishOrder.removeAll()
        waiters.removeAll()
        holders.removeAll()
        state = .shutDown
        closeTurnEnd()
        cancelTimers()
        socket?.abort(WebSocketError(.connectionFailed, reason))
        socket = nil
        let reset = APIError.operationError(reason, "Connect again.")
        for connect in connects { connect.ready(.failure(reset)) }
        for publish in waiting {
            publish.timer?.cancel()
            publish.publish.finish(.failure(reset))
        }
        for subscription in subscriptions {
            subscription.state(.disconnected)
            subscription.complete()
        }
    }

    // MARK: Connecting

    private func prepareAndOpen() {
        state = .preparing
        generation += 1
        let generation = self.generation
        let refresh = authorizationRefusals > 0
        let authorize = self.authorize
        let loop = self.loop
        let connection = ConnectionReference(self)
        Task {
            let result: Result<PreparedAuthorization, APIError>
            do {
                result = .success(try await authorize(refresh))
            } catch {
                result = .failure(error as? APIError ?? .operationError("\(error)", "", error))
            }
            try? loop.execute {
                guard let connection = connection.value, connection.state == .preparing, connection.generation == generation else { return }
                switch result {
                case .success(let authorization):
                    connection.authorization = authorization
                    connection.openSocket()
                case .failure(let error) where connection.failedAttempts > 0:
                    // Reconnecting: a refresh that failed once (a network blip) is one more failed
                    // attempt, not the end of every subscription.
                    connection.lost("its authorization could not be had: \(error.errorDescription)", abort: false)
                case .failure(let error):
                    connection.failAll(error)
                }
            }
        }
    }

    private func openSocket() {
        guard let authorization, let url = endpoint.realtimeEndpoint else {
            failAll(.invalidURL("No real-time endpoint can be made from \(endpoint.endpoint).", "Check the Events API's endpoint."))
            return
        }
        let headers = authorization.eventsHeaders(endpoint: endpoint, body: "{}")
        let headerJSON = (try? JSONValue.object(headers.mapValues(JSONValue.string)).jsonBytes()) ?? Array("{}".utf8)
        let header = Data(headerJSON).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        state = .connecting
        generation += 1
        let generation = self.generation
        let socketOptions = WebSocketClient.Options(
            subprotocols: ["aws-appsync-event-ws", "header-\(header)"], trustedCertificatesFile: options.trustedCertificatesFile,
            openTimeout: options.acknowledgementTimeout, maximumFrameSize: options.maximumMessageSize, maximumMessageSize: options.maximumMessageSize)
        let socket = WebSocketClient(loop: loop, url: url, options: socketOptions) { [weak self] event in
            guard let self, self.generation == generation else { return }
            self.socketEvent(event)
        }
        self.socket = socket
        socket.connect()
    }

    private func socketEvent(_ event: WebSocketClient.Event) {
        switch event {
        case .open:
            state = .initializing
            send(["type": "connection_init"])
            acknowledgementTimer = schedule(options.acknowledgementTimeout) { connection in
                connection.lost("no connection_ack within \(connection.options.acknowledgementTimeout)", abort: true)
            }
        case .text(let text):
            message(Array(text.utf8))
        case .binary, .pong:
            break
        case .closed(let closure):
            socket = nil
            switch closure {
            case .clean(let code, let reason):
                lost("the server closed the WebSocket (\(code.map(String.init) ?? "no code")\(reason.isEmpty ? "" : ": \(reason)"))", abort: false)
            case .failed(let error):
                lost(error.message, abort: false, error: error)
            }
        }
    }

    // MARK: Messages

    private func message(_ bytes: [UInt8]) {
        guard let json = try? JSONValue(parsing: bytes), let type = json["type"]?.stringValue else {
            logger.warn("\(name) received a message that is not JSON with a type: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
            return
        }
        let id = json["id"]?.stringValue
        switch type {
        case "data":
            guard let id, let entry = entries[id] else { return }
            guard let event = Self.event(of: json) else {
                logger.warn("\(name) received a data message for \(entry.subscription.channel) whose event is not JSON; it is skipped")
                return
            }
            hold(event, for: entry.subscription)
        case "ka":
            armKeepAlive()
        case "connection_ack":
            acknowledgementTimer?.cancel()
            acknowledgementTimer = nil
            state = .ready
            failedAttempts = 0
            authorizationRefusals = 0
            if let milliseconds = (json["connectionTimeoutMs"] ?? json.value(at: "payload.connectionTimeoutMs"))?.intValue, milliseconds > 0 {
                keepAliveTimeout = .milliseconds(milliseconds)
            }
            armKeepAlive()
            let connects = waiters
            waiters.removeAll()
            for connect in connects { connect.ready(.success(())) }
            for id in order where entries[id]?.phase == .pending { subscribe(id) }
            for id in publishOrder { sendPublish(id) }
            closeIfUnused()
        case "subscribe_success":
            guard let id, var entry = entries[id] else { return }
            subscribeTimers.removeValue(forKey: id)?.cancel()
            entry.phase = .subscribed
            entries[id] = entry
            entry.subscription.state(.connected)
        case "subscribe_error":
            guard let id, let entry = entries.removeValue(forKey: id) else { return }
            order.removeAll { $0 == id }
            subscribeTimers.removeValue(forKey: id)?.cancel()
            entry.subscription.state(.disconnected)
            entry.subscription.fail(
                .operationError(
                    "AppSync refused the subscription to \(entry.subscription.channel): \(RealtimeErrorText.describe(Self.errors(of: json))).",
                    "Check the channel's namespace and the subscribe auth mode's credentials."))
            closeIfUnused()
        case "publish_success":
            guard let id else { return }
            finishPublish(id, .success(EventsPublishResult(json)))
        case "publish_error":
            guard let id, let channel = publishes[id]?.publish.channel else { return }
            finishPublish(
                id,
                .failure(
                    .operationError(
                        "AppSync refused the publish to \(channel): \(RealtimeErrorText.describe(Self.errors(of: json))).",
                        "Check the channel's namespace, the events (at most 5, each at most 240 KB of JSON) and the publish auth mode's credentials.")
                ))
        case "unsubscribe_success", "unsubscribe_error":
            logger.debug("\(name): \(type) for \(id ?? "no id")")
        case "broadcast_error":
            let channel = id.flatMap { entries[$0]?.subscription.channel } ?? "a channel"
            logger.warn("\(name): AppSync could not deliver an event to \(channel): \(RealtimeErrorText.describe(Self.errors(of: json)))")
        case "connection_error":
            let errors = Self.errors(of: json)
            let unauthorized = errors.contains {
                $0["errorType"]?.stringValue?.contains("Unauthorized") == true || $0["errorCode"]?.intValue == 401 || $0["code"]?.intValue == 401
            }
            if unauthorized {
                authorizationRefusals += 1
                guard authorizationRefusals <= 1 else {
                    failAll(
                        .operationError(
                            "AppSync refused \(name): \(RealtimeErrorText.describe(errors)).",
                            "Check the connect auth mode's credentials (the API key, the signed-in user, the IAM credentials or the token)."))
                    return
                }
            }
            lost("AppSync refused the connection: \(RealtimeErrorText.describe(errors))", abort: true, immediately: unauthorized)
        case "error":
            let errors = Self.errors(of: json)
            if let id, publishes[id] != nil {
                finishPublish(id, .failure(.operationError("AppSync answered the publish with an error: \(RealtimeErrorText.describe(errors)).", "")))
            } else if let id, let entry = entries.removeValue(forKey: id) {
                order.removeAll { $0 == id }
                subscribeTimers.removeValue(forKey: id)?.cancel()
                entry.subscription.state(.disconnected)
                entry.subscription.fail(.operationError("AppSync ended the subscription with an error: \(RealtimeErrorText.describe(errors)).", ""))
                closeIfUnused()
            } else {
                lost("AppSync reported an error: \(RealtimeErrorText.describe(errors))", abort: true)
            }
        default:
            logger.debug("\(name) ignored a \(type) message")
        }
    }

    /// A `data` message's event: its `event` string parsed as JSON (or the value itself, should
    /// it come unstringified).
    static func event(of message: JSONValue) -> JSONValue? {
        guard let event = message["event"] else { return nil }
        guard case .string(let text) = event else { return event }
        return try? JSONValue(parsing: Array(text.utf8))
    }

    private func hold(_ event: JSONValue, for subscription: EventsSubscription) {
        subscription.deliver(event)
        turnEnd.add(ObjectIdentifier(subscription), subscription.flush)
    }

    private func closeTurnEnd() {
        turnEnd.close()
    }

    private func send(_ message: JSONValue) {
        guard let bytes = try? message.jsonBytes() else { return }
        socket?.send(text: String(decoding: bytes, as: UTF8.self))
    }

    // MARK: Failures

    /// The socket is gone (or must go): fail the connects waiting for it and the publishes sent
    /// on it, tell the subscriptions, then reconnect after the backoff.
    private func lost(_ reason: String, abort: Bool, error: WebSocketError? = nil, immediately: Bool = false) {
        guard state != .shutDown else { return }
        cancelTimers()
        if abort, let socket {
            self.socket = nil
            generation += 1
            socket.abort(WebSocketError(.connectionFailed, reason))
        }
        socket = nil
        // Closing because nothing used it: whatever arrived meanwhile waits for a new socket.
        let wasClosing = state == .closing
        let connects = wasClosing ? [] : waiters
        if !wasClosing { waiters.removeAll() }
        for connect in connects {
            holders.remove(connect.channel)
            connect.ready(.failure(.networkError("Could not connect to the Events API '\(endpoint.name)': \(reason).", nil, error)))
        }
        for id in publishOrder where publishes[id]?.sent == true {
            finishPublishQuietly(
                id,
                .networkError(
                    "The connection to '\(endpoint.name)' was lost before AppSync answered the publish (\(reason)); its events may or may not have been delivered.",
                    nil, error))
        }
        if isUnused {
            becomeIdle()
            return
        }
        if wasClosing {
            prepareAndOpen()
            return
        }
        logger.info("\(name) was lost (\(reason)); reconnecting")
        for id in order {
            guard var entry = entries[id] else { continue }
            if entry.phase != .pending { entry.subscription.state(.connecting) }
            entry.phase = .pending
            entry.stale = true
            entries[id] = entry
        }
        failedAttempts += 1
        if let maximum = options.reconnect.maximumAttempts, failedAttempts > maximum {
            failAll(
                .networkError(
                    "\(name.prefix(1).uppercased() + name.dropFirst()) failed \(failedAttempts) times in a row; the last time: \(reason).", nil, error
                ))
            return
        }
        state = .waitingToRetry
        let delay = immediately ? .zero : options.reconnect.delay(beforeAttempt: failedAttempts)
        retryTimer = schedule(delay) { connection in
            guard connection.state == .waitingToRetry else { return }
            connection.prepareAndOpen()
        }
    }

    private func finishPublishQuietly(_ id: String, _ error: APIError) {
        guard let waiting = publishes.removeValue(forKey: id) else { return }
        publishOrder.removeAll { $0 == id }
        waiting.timer?.cancel()
        waiting.publish.finish(.failure(error))
    }

    /// Fails everything waiting on the connection (connects, publishes, subscriptions) and goes idle.
    private func failAll(_ error: APIError) {
        let subscriptions = order.compactMap { entries[$0]?.subscription }
        let waiting = publishOrder.compactMap { publishes[$0] }
        let connects = waiters
        entries.removeAll()
        order.removeAll()
        publishes.removeAll()
        publishOrder.removeAll()
        waiters.removeAll()
        holders.removeAll()
        cancelTimers()
        if let socket {
            self.socket = nil
            generation += 1
            socket.abort(WebSocketError(.connectionFailed, error.errorDescription))
        }
        becomeIdle()
        for connect in connects { connect.ready(.failure(error)) }
        for publish in waiting {
            publish.timer?.cancel()
            publish.publish.finish(.failure(error))
        }
        for subscription in subscriptions {
            subscription.state(.disconnected)
            subscription.fail(error)
        }
    }

    private func armKeepAlive() {
        keepAliveTimer?.cancel()
        let timeout = keepAliveTimeout
        keepAliveTimer = schedule(timeout) { connection in
            connection.lost("no keep-alive (ka) within \(timeout)", abort: true)
        }
    }

    private func cancelTimers() {
        keepAliveTimer?.cancel()
        keepAliveTimer = nil
        acknowledgementTimer?.cancel()
        acknowledgementTimer = nil
        retryTimer?.cancel()
        retryTimer = nil
        for timer in subscribeTimers.values { timer.cancel() }
        subscribeTimers.removeAll()
    }

    private func schedule(_ delay: Duration, _ action: @escaping (AppSyncEventsConnection) -> Void) -> LoopTimer? {
        loop.schedule(delay, on: self, action)
    }

    private static func errors(of message: JSONValue) -> [JSONValue] {
        message["errors"]?.asArray ?? message.value(at: "payload.errors")?.asArray ?? []
    }
}
