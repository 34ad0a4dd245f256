import AWSPluginsCore
import Amplify
import AmplifyEventLoop
import AmplifyWebSocket
import Foundation

/// One WebSocket to an AppSync API's real-time endpoint for one auth mode, shared by its
/// subscriptions (AWS's "real-time WebSocket client" protocol, subprotocol `graphql-ws`):
/// `connection_init` → `connection_ack` (its `connectionTimeoutMs` bounds the silence between
/// `ka` messages), `start` → `start_ack` | `error`, `data`, `stop` → `complete`.
///
/// A drop, a close, a `ka` that does not come, or an acknowledgement that does not come make it
/// reconnect with jittered exponential backoff and freshly fetched credentials, and start every
/// live subscription again; an authorization refusal reconnects once with refreshed tokens and
/// then fails the subscriptions. The socket closes after the last subscription stops.
///
/// Loop thread only.
final class AppSyncRealtimeConnection: @unchecked Sendable {
    // @unchecked Sendable: every field is read and written on the loop thread only; the Tasks
    // that fetch credentials hop back with `loop.execute` before touching anything.

    private enum State {
        /// No socket and nothing to do.
        case idle
        /// Fetching the connection's authorization.
        case preparing
        /// The WebSocket is opening.
        case connecting
        /// `connection_init` sent, waiting for `connection_ack`.
        case initializing
        /// Acknowledged: subscriptions start and data flows.
        case ready
        /// Closing because no subscription is left.
        case closing
        /// Waiting for the backoff before the next attempt.
        case waitingToRetry
        /// Shut down for good.
        case shutDown
    }

    private enum Phase {
        case pending, starting, started
    }

    private struct Entry {
        let subscription: RealtimeSubscription
        var phase: Phase
    }

    private let loop: EventLoop
    private let endpoint: APIEndpointConfiguration
    private let mode: AWSAuthorizationType
    private let sources: APIAuthSources
    private let options: AWSAPIPlugin.Options
    private let onIdle: () -> Void
    private let logger = Amplify.Logging.logger(forCategory: "API")

    private var state = State.idle
    private var socket: WebSocketClient?
    private var entries: [String: Entry] = [:]
    private var order: [String] = []
    private var authorization: PreparedAuthorization?
    private var failedAttempts = 0
    private var authorizationRefusals = 0
    private var lastFailure = ""
    private var keepAliveTimeout: Duration = .seconds(300)
    private var keepAliveTimer: LoopTimer?
    private var acknowledgementTimer: LoopTimer?
    private var retryTimer: LoopTimer?
    private var startTimers: [String: LoopTimer] = [:]
    /// Subscriptions restarted after a reconnect: their own authorization may be stale, so their
    /// `start` carries the connection's freshly fetched one.
    private var reauthorized = Set<String>()
    /// Bumped for each socket and each authorization fetch: events of an older one are ignored.
    private var generation = 0
    /// Subscriptions holding events decoded this loop turn, flushed at its end.
    private lazy var turnEnd = TurnEndFlusher(loop: loop)

    init(
        loop: EventLoop, endpoint: APIEndpointConfiguration, mode: AWSAuthorizationType, sources: APIAuthSources,
        options: AWSAPIPlugin.Options, onIdle: @escaping () -> Void
    ) {
        self.loop = loop
        self.endpoint = endpoint
        self.mode = mode
        self.sources = sources
        self.options = options
        self.onIdle = onIdle
    }

    private var name: String { "the real-time connection to '\(endpoint.name)' (\(mode.rawValue))" }

    // MARK: Subscriptions

    /// Adds a subscription: started at once when the socket is ready, else when it is.
    func add(_ subscription: RealtimeSubscription) {
        guard state != .shutDown else {
            subscription.fail(.operationError("The API plugin was reset.", "Configure Amplify again."))
            return
        }
        entries[subscription.id] = Entry(subscription: subscription, phase: .pending)
        order.append(subscription.id)
        subscription.state(.connecting)
        switch state {
        case .ready:
            start(subscription.id)
        case .idle:
            // The subscription's authorization was just fetched: the first connection uses it.
            authorization = subscription.authorization
            openSocket()
        case .preparing, .connecting, .initializing, .waitingToRetry, .closing, .shutDown:
            break
        }
    }

    /// Stops a subscription (its sequence was cancelled); closes the socket if it was the last.
    func stop(_ id: String) {
        guard let entry = entries.removeValue(forKey: id) else { return }
        order.removeAll { $0 == id }
        reauthorized.remove(id)
        startTimers.removeValue(forKey: id)?.cancel()
        if state == .ready, entry.phase != .pending {
            send(["type": "stop", "id": .string(id)])
        }
        closeIfUnused()
    }

    private func closeIfUnused() {
        guard entries.isEmpty else { return }
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

    /// Has `subscription` decode a data message now and send it at the end of this loop turn,
    /// with the others read in the same turn.
    private func hold(_ bytes: [UInt8], _ payload: Range<Int>?, for subscription: RealtimeSubscription) {
        subscription.deliver(bytes, payload)
        turnEnd.add(ObjectIdentifier(subscription), subscription.flush)
    }

    private func closeTurnEnd() {
        turnEnd.close()
    }

    private func becomeIdle() {
        closeTurnEnd()
        state = .idle
        socket = nil
        failedAttempts = 0
        authorizationRefusals = 0
        onIdle()
    }

    /// Ends every subscription and closes the socket at once (the plugin is being reset).
    func shutdown() {
        let subscriptions = order.compactMap { entries[$0]?.subscription }
        entries.removeAll()
        order.removeAll()
        state = .shutDown
        closeTurnEnd()
        cancelTimers()
        socket?.abort(WebSocketError(.connectionFailed, "The API plugin was reset."))
        socket = nil
        for subscription in subscriptions {
            subscription.state(.disconnected)
            subscription.complete()
        }
    }

    // MARK: Connecting

    /// Fetches fresh authorization (refreshed tokens after a refusal), then opens the socket.
    private func prepareAndOpen() {
        state = .preparing
        generation += 1
        let generation = self.generation
        let refresh = authorizationRefusals > 0
        let endpoint = self.endpoint
        let mode = self.mode
        let sources = self.sources
        let loop = self.loop
        let connection = ConnectionReference(self)
        Task {
            let result: Result<PreparedAuthorization, APIError>
            do {
                result = .success(try await PreparedAuthorization.prepare(mode: mode, endpoint: endpoint, sources: sources, forceRefresh: refresh))
            } catch {
                result = .failure(error as? APIError ?? .operationError("\(error)", "", error))
            }
            try? loop.execute {
                guard let connection = connection.value, connection.state == .preparing, connection.generation == generation else { return }
                switch result {
                case .success(let authorization):
                    connection.authorization = authorization
                    connection.openSocket()
                case .failure(let error):
                    connection.failAll(error)
                }
            }
        }
    }

    private func openSocket() {
        guard let authorization, let realtime = endpoint.realtimeEndpoint,
            var components = URLComponents(url: realtime, resolvingAgainstBaseURL: false)
        else {
            failAll(.invalidURL("No real-time endpoint can be made from \(endpoint.endpoint).", "Check the API's endpoint."))
            return
        }
        let apiPath = endpoint.endpoint.path.isEmpty ? "/graphql" : endpoint.endpoint.path
        let headers = authorization.realtimeHeaders(host: endpoint.endpoint.hostHeader, path: apiPath + "/connect", body: Array("{}".utf8))
        let headerJSON = (try? JSONEncoder().encode(JSONValue.object(headers.mapValues(JSONValue.string)))) ?? Data("{}".utf8)
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let encoded = headerJSON.base64EncodedString().addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        components.percentEncodedQuery = "header=\(encoded)&payload=e30%3D"
        guard let url = components.url else {
            failAll(.invalidURL("The real-time URL for '\(endpoint.name)' could not be made.", "Check the API's endpoint."))
            return
        }
        state = .connecting
        generation += 1
        let generation = self.generation
        let socketOptions = WebSocketClient.Options(
            subprotocols: ["graphql-ws"], trustedCertificatesFile: options.trustedCertificatesFile, openTimeout: options.acknowledgementTimeout,
            maximumFrameSize: options.maximumMessageSize, maximumMessageSize: options.maximumMessageSize)
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
            message(text)
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

    private func message(_ text: String) {
        let bytes = Array(text.utf8)
        // Data messages, the many, are read once for their type and id and handed on whole.
        if let header = RealtimeMessageHeader(scanning: bytes), header.type == "data" {
            if let id = header.id, let entry = entries[id] { hold(bytes, header.payload, for: entry.subscription) }
            return
        }
        guard let json = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)), let type = json["type"]?.stringValue else {
            logger.warn("\(name) received a message that is not JSON with a type: \(text.prefix(200))")
            return
        }
        let id = json["id"]?.stringValue
        switch type {
        case "connection_ack":
            acknowledgementTimer?.cancel()
            acknowledgementTimer = nil
            state = .ready
            failedAttempts = 0
            authorizationRefusals = 0
            if let milliseconds = json.value(at: "payload.connectionTimeoutMs")?.intValue, milliseconds > 0 {
                keepAliveTimeout = .milliseconds(milliseconds)
            }
            armKeepAlive()
            for id in order where entries[id]?.phase == .pending { start(id) }
        case "ka":
            armKeepAlive()
        case "start_ack":
            guard let id, var entry = entries[id] else { return }
            startTimers.removeValue(forKey: id)?.cancel()
            entry.phase = .started
            entries[id] = entry
            entry.subscription.state(.connected)
        case "data":
            guard let id, let entry = entries[id] else { return }
            hold(bytes, nil, for: entry.subscription)
        case "complete":
            guard let id, let entry = entries.removeValue(forKey: id) else { return }
            order.removeAll { $0 == id }
            startTimers.removeValue(forKey: id)?.cancel()
            entry.subscription.state(.disconnected)
            entry.subscription.complete()
            closeIfUnused()
        case "error":
            let errors = json.value(at: "payload.errors")?.asArray ?? []
            if let id, let entry = entries.removeValue(forKey: id) {
                order.removeAll { $0 == id }
                startTimers.removeValue(forKey: id)?.cancel()
                entry.subscription.state(.disconnected)
                entry.subscription.fail(
                    .operationError(
                        "The server refused the subscription: \(RealtimeErrorText.describe(errors)).",
                        "Check the subscription's document, variables and authorization against the schema."))
                closeIfUnused()
            } else {
                lost("the server reported an error: \(RealtimeErrorText.describe(errors))", abort: true)
            }
        case "connection_error":
            let errors = json.value(at: "payload.errors")?.asArray ?? []
            let unauthorized = errors.contains { $0["errorType"]?.stringValue?.contains("Unauthorized") == true || $0["errorCode"]?.intValue == 401 }
            if unauthorized {
                authorizationRefusals += 1
                guard authorizationRefusals <= 1 else {
                    failAll(
                        .operationError(
                            "The server refused \(name): \(RealtimeErrorText.describe(errors)).",
                            "Check the \(mode.rawValue) credentials (the API key, the signed-in user, the IAM credentials or the token provider)."))
                    return
                }
            }
            lost("the server refused the connection: \(RealtimeErrorText.describe(errors))", abort: true, immediately: unauthorized)
        default:
            logger.debug("\(name) ignored a \(type) message")
        }
    }

    private func start(_ id: String) {
        guard var entry = entries[id] else { return }
        let subscription = entry.subscription
        let apiPath = endpoint.endpoint.path.isEmpty ? "/graphql" : endpoint.endpoint.path
        // A subscription's own authorization, except after a reconnect: then the connection's
        // freshly fetched one.
        let authorization = reauthorized.contains(id) ? (self.authorization ?? subscription.authorization) : subscription.authorization
        let headers = authorization.realtimeHeaders(host: endpoint.endpoint.hostHeader, path: apiPath, body: Array(subscription.data.utf8))
        send([
            "id": .string(id), "type": "start",
            "payload": ["data": .string(subscription.data), "extensions": ["authorization": .object(headers.mapValues(JSONValue.string))]],
        ])
        entry.phase = .starting
        entries[id] = entry
        startTimers[id] = schedule(options.acknowledgementTimeout) { connection in
            guard let entry = connection.entries.removeValue(forKey: id) else { return }
            connection.order.removeAll { $0 == id }
            connection.startTimers[id] = nil
            entry.subscription.state(.disconnected)
            entry.subscription.fail(
                .networkError("The server did not acknowledge the subscription within \(connection.options.acknowledgementTimeout)."))
            connection.closeIfUnused()
        }
    }

    private func send(_ message: JSONValue) {
        guard let data = try? JSONEncoder().encode(message) else { return }
        socket?.send(text: String(decoding: data, as: UTF8.self))
    }

    // MARK: Failures

    /// The socket is gone (or must go): tell the subscriptions, then reconnect after the backoff.
    private func lost(_ reason: String, abort: Bool, error: WebSocketError? = nil, immediately: Bool = false) {
        guard state != .shutDown else { return }
        cancelTimers()
        if abort, let socket {
            self.socket = nil
            generation += 1
            socket.abort(WebSocketError(.connectionFailed, reason))
        }
        socket = nil
        if state == .closing || entries.isEmpty {
            if entries.isEmpty {
                becomeIdle()
            } else {
                prepareAndOpen()
            }
            return
        }
        lastFailure = reason
        logger.info("\(name) was lost (\(reason)); reconnecting")
        for id in order {
            guard var entry = entries[id] else { continue }
            if entry.phase != .pending { entry.subscription.state(.connecting) }
            entry.phase = .pending
            entries[id] = entry
            reauthorized.insert(id)
        }
        failedAttempts += 1
        if let maximum = options.reconnect.maximumAttempts, failedAttempts > maximum {
            failAll(
                .networkError(
                    "\(name.prefix(1).uppercased() + name.dropFirst()) failed \(failedAttempts) times in a row; the last time: \(reason).", nil,
                    error))
            return
        }
        state = .waitingToRetry
        let delay = immediately ? .zero : options.reconnect.delay(beforeAttempt: failedAttempts)
        retryTimer = schedule(delay) { connection in
            guard connection.state == .waitingToRetry else { return }
            connection.prepareAndOpen()
        }
    }

    /// Fails every subscription (`disconnected`, then the error) and goes idle.
    private func failAll(_ error: APIError) {
        let subscriptions = order.compactMap { entries[$0]?.subscription }
        entries.removeAll()
        order.removeAll()
        reauthorized.removeAll()
        cancelTimers()
        if let socket {
            self.socket = nil
            generation += 1
            socket.abort(WebSocketError(.connectionFailed, error.errorDescription))
        }
        becomeIdle()
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
        for timer in startTimers.values { timer.cancel() }
        startTimers.removeAll()
    }

    private func schedule(_ delay: Duration, _ action: @escaping (AppSyncRealtimeConnection) -> Void) -> LoopTimer? {
        loop.schedule(delay, on: self, action)
    }
}
