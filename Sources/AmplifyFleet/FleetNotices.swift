import Amplify
import AmplifyAuthCore
import AmplifyEventLoop
import AmplifyRedis
import Foundation

/// Notices shared by a fleet over Redis pub/sub: a session begun or ended on one instance, a
/// revocation made there (a sign-out's tokens), an Auth event to relay. Every instance hears
/// them, so each holds the same sessions, refuses the same tokens and empties the same
/// verified-token cache entries.
///
/// The subscription runs on its own hiredis connection on the loop and comes back after a loss
/// with backoff (100 ms doubling to 5 s); notices published while an instance was disconnected
/// are not replayed (pub/sub keeps none), so a reconnected instance reports ``Event/resubscribed``
/// and its owner re-reads what it holds. Safe from any task.
package final class FleetNotices: Sendable {
    /// One notice.
    package struct Notice: Sendable, Equatable {
        /// What happened.
        package enum Kind: Sendable, Equatable {
            /// A user signed in on the origin: read the session's record.
            case began(username: String)
            /// The user's session ended on the origin: forget it.
            case ended(username: String)
            /// The origin refused a session's or user's tokens from now on.
            case revoked(SessionRevocation)
            /// An Auth event the origin dispatched, to dispatch here marked as remote; `id` is
            /// the same in every instance.
            case event(name: String, user: AuthUserEvent, id: String)
        }

        package let kind: Kind
        /// The instance that saw it.
        package let origin: String
        /// When it was published (the publisher's clock).
        package let sentAt: Date

        package init(_ kind: Kind, origin: String, sentAt: Date = Date()) {
            self.kind = kind
            self.origin = origin
            self.sentAt = sentAt
        }

        var json: JSONValue {
            var members: [String: JSONValue] = ["origin": .string(origin), "sentAt": .number(sentAt.timeIntervalSince1970)]
            switch kind {
            case .began(let username):
                members["kind"] = "began"
                members["username"] = .string(username)
            case .ended(let username):
                members["kind"] = "ended"
                members["username"] = .string(username)
            case .revoked(.session(let id, let until)):
                members["kind"] = "revokedSession"
                members["session"] = .string(id)
                members["until"] = .number(until)
            case .revoked(.user(let sub, let before)):
                members["kind"] = "revokedUser"
                members["sub"] = .string(sub)
                members["before"] = .number(before)
            case .revoked(.poolChanged):
                members["kind"] = "poolChanged"
            case .event(let name, let user, let id):
                members["kind"] = "event"
                members["event"] = .string(name)
                members["id"] = .string(id)
                members["username"] = .string(user.username)
                members["sub"] = .string(user.sub)
                members["scope"] = .string(user.scope.rawValue)
                members["tenant"] = .string(user.tenant)
            }
            return .object(members)
        }

        init?(json: JSONValue) {
            guard let origin = json["origin"]?.stringValue, let kind = json["kind"]?.stringValue else { return nil }
            let sentAt = json["sentAt"]?.doubleValue.map(Date.init(timeIntervalSince1970:)) ?? Date()
            switch kind {
            case "began", "ended":
                guard let username = json["username"]?.stringValue else { return nil }
                self.init(kind == "began" ? .began(username: username) : .ended(username: username), origin: origin, sentAt: sentAt)
            case "revokedSession":
                guard let id = json["session"]?.stringValue, let until = json["until"]?.doubleValue else { return nil }
                self.init(.revoked(.session(id: id, until: until)), origin: origin, sentAt: sentAt)
            case "revokedUser":
                guard let sub = json["sub"]?.stringValue, let before = json["before"]?.doubleValue else { return nil }
                self.init(.revoked(.user(sub: sub, before: before)), origin: origin, sentAt: sentAt)
            case "poolChanged":
                self.init(.revoked(.poolChanged), origin: origin, sentAt: sentAt)
            case "event":
                guard let name = json["event"]?.stringValue, let id = json["id"]?.stringValue, let username = json["username"]?.stringValue,
                    let scope = json["scope"]?.stringValue.flatMap(AuthUserEvent.Scope.init(rawValue:)), let tenant = json["tenant"]?.stringValue
                else { return nil }
                let user = AuthUserEvent(username: username, sub: json["sub"]?.stringValue ?? "", scope: scope, tenant: tenant)
                self.init(.event(name: name, user: user, id: id), origin: origin, sentAt: sentAt)
            default:
                return nil
            }
        }
    }

    /// What the subscription reports.
    package enum Event: Sendable, Equatable {
        /// A notice from any instance (this one's own included).
        case notice(Notice)
        /// The subscription is (again) in place: notices published before were missed.
        case resubscribed
    }

    private let host: String
    private let port: Int
    private let loop: EventLoop
    private let channel: String
    private let credentials: RedisCredentials?
    private let publisher: RedisClient
    private let state: LoopBound<State>

    /// Loop-thread state of the subscription.
    private final class State {
        var connection: RedisConnection?
        var continuation: AsyncStream<Event>.Continuation?
        var failures = 0
        var retry: LoopTimer?
        var stopped = false
    }

    /// Notices on the pub/sub channel `channel` of the Redis at `host`:`port`.
    package init(host: String, port: Int, loop: EventLoop, channel: String = "amplify:fleet:notices", credentials: RedisCredentials? = nil) {
        self.host = host
        self.port = port
        self.loop = loop
        self.channel = channel
        self.credentials = credentials
        publisher = RedisClient(host: host, port: port, loop: loop, credentials: credentials)
        state = LoopBound(State(), loop: loop)
    }

    /// Publishes `notice`.
    /// - Returns: how many instances' subscriptions received it (Redis's count).
    /// - Throws: `RedisClientError`, or ``FleetRecordError`` for an error reply.
    @discardableResult
    package func publish(_ notice: Notice) async throws -> Int {
        let reply = try await publisher.command([Array("PUBLISH".utf8), Array(channel.utf8), try notice.json.jsonBytes()])
        guard case .integer(let receivers) = reply else { throw FleetRecordError(reply, "PUBLISH \(channel)") }
        return receivers
    }

    /// Subscribes and returns the events; call once. The sequence ends after ``stop()``.
    package func events() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream()
        let state = self.state
        do {
            try loop.execute { [self] in
                state.value.continuation = continuation
                self.subscribe(state.value)
            }
        } catch {
            continuation.finish()
        }
        return stream
    }

    /// Ends the subscription and the publisher's connection.
    package func stop() async {
        let state = self.state
        await loop.value(ifShutDown: ()) {
            let current = state.value
            current.stopped = true
            current.retry?.cancel()
            current.retry = nil
            current.connection?.close()
            current.connection = nil
            current.continuation?.finish()
            current.continuation = nil
        }
        await publisher.close()
    }

    // MARK: Loop thread

    private func subscribe(_ state: State) {
        guard !state.stopped else { return }
        let connection = RedisConnection()
        state.connection = connection
        let channel = self.channel
        connection.onStateChange = { [weak self, weak state, weak connection] problem in
            guard let self, let state, let connection, state.connection === connection else { return }
            if problem == nil {
                let subscribe = { [weak self, weak state] in
                    connection.subscribe(channel) { [weak self, weak state] reply in
                        guard let self, let state else { return }
                        self.received(reply, state)
                    }
                }
                guard let credentials = self.credentials else { return subscribe() }
                _ = connection.send(credentials.command.map { Array($0.utf8) }) { [weak self, weak state] answer in
                    guard let self, let state, state.connection === connection else { return }
                    if answer == .status("OK") { return subscribe() }
                    Amplify.Logging.logger(forCategory: "Auth", forNamespace: "AmplifyFleet").error(
                        "Redis at \(self.host):\(self.port) refused AUTH for the fleet's notices: \(answer?.errorMessage ?? "no answer").")
                    state.connection = nil
                    connection.close()
                    self.retryLater(state)
                }
            } else {
                state.connection = nil
                self.retryLater(state)
            }
        }
        if connection.connect(host: host, port: port, loop: loop) != nil {
            state.connection = nil
            retryLater(state)
        }
    }

    private func received(_ reply: RedisReply?, _ state: State) {
        guard let elements = reply?.elements, let kind = elements.first?.text else { return }
        switch kind {
        case "subscribe":
            state.failures = 0
            state.continuation?.yield(.resubscribed)
        case "message":
            guard elements.count == 3, let text = elements[2].text, let json = try? JSONValue(parsing: Array(text.utf8)),
                let notice = Notice(json: json)
            else { return }
            state.continuation?.yield(.notice(notice))
        default:
            break
        }
    }

    private func retryLater(_ state: State) {
        guard !state.stopped else { return }
        state.failures += 1
        let exponent = min(max(state.failures - 1, 0), 6)
        let delay = min(Duration.milliseconds(100) * (1 << exponent), .seconds(5))
        state.retry = try? loop.scheduleTimer(after: delay) { [weak self] in
            guard let self else { return }
            let state = self.state.value
            state.retry = nil
            self.subscribe(state)
        }
    }
}
