import Amplify
import AmplifyEventLoop
import AmplifyRedis
import Foundation

/// Revocation notices shared by a fleet over Redis pub/sub: an instance that ends a session (a
/// sign-out, a deletion, a refused refresh) publishes one, and every instance hears it, so that
/// each drops its copy of the session and its verified-token cache entries for that user.
///
/// The subscription runs on its own hiredis connection on the loop and comes back after a loss
/// with backoff (100 ms doubling to 5 s); notices published while an instance was disconnected
/// are not replayed (pub/sub keeps none), so a reconnected instance reports ``Event/resubscribed``
/// and its owner re-reads what it holds. Safe from any task.
package final class FleetRevocations: Sendable {
    /// One notice.
    package struct Notice: Sendable, Equatable {
        /// Whose session ended.
        package let username: String
        /// Why: `signedOut`, `globalSignOut`, `userDeleted`, `refreshRefused`.
        package let reason: String
        /// The instance that saw it.
        package let origin: String
        /// When it was published (the publisher's clock).
        package let sentAt: Date

        package init(username: String, reason: String, origin: String, sentAt: Date = Date()) {
            self.username = username
            self.reason = reason
            self.origin = origin
            self.sentAt = sentAt
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
    package init(host: String, port: Int, loop: EventLoop, channel: String = "amplify:fleet:revoked") {
        self.host = host
        self.port = port
        self.loop = loop
        self.channel = channel
        publisher = RedisClient(host: host, port: port, loop: loop)
        state = LoopBound(State(), loop: loop)
    }

    /// Publishes `notice`.
    /// - Returns: how many instances' subscriptions received it (Redis's count).
    /// - Throws: `RedisClientError`, or ``FleetRecordError`` for an error reply.
    @discardableResult
    package func publish(_ notice: Notice) async throws -> Int {
        let json: JSONValue = [
            "username": .string(notice.username), "reason": .string(notice.reason), "origin": .string(notice.origin),
            "sentAt": .number(notice.sentAt.timeIntervalSince1970),
        ]
        let reply = try await publisher.command([Array("PUBLISH".utf8), Array(channel.utf8), try json.jsonBytes()])
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
                connection.subscribe(channel) { [weak self, weak state] reply in
                    guard let self, let state else { return }
                    self.received(reply, state)
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
                let username = json["username"]?.stringValue, let reason = json["reason"]?.stringValue, let origin = json["origin"]?.stringValue
            else { return }
            let sentAt = json["sentAt"]?.doubleValue.map(Date.init(timeIntervalSince1970:)) ?? Date()
            state.continuation?.yield(.notice(Notice(username: username, reason: reason, origin: origin, sentAt: sentAt)))
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
