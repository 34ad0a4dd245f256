import AmplifyConcurrency
import AmplifyEventLoop
import Foundation
import Synchronization

/// Why a Redis command did not get a reply.
package struct RedisClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, with the server's address.
    package let message: String
    package var description: String { message }
}

/// What a Redis server that requires AUTH is sent first on every connection (Redis 6's ACL user,
/// or only the password for `requirepass`).
package struct RedisCredentials: Sendable, Equatable {
    package var username: String?
    package var password: String

    package init(username: String? = nil, password: String) {
        self.username = username
        self.password = password
    }

    /// The AUTH command.
    package var command: [String] { ["AUTH"] + (username.map { [$0] } ?? []) + [password] }
}

/// Request and reply over one hiredis connection on the event loop, for callers that are not on
/// the loop: `try await client.command(["SET", key, value])`. It connects on the first command,
/// and again on the next command after the connection is lost; commands in flight when it is
/// lost fail (Redis may or may not have applied them), none is sent twice. An error reply is a
/// reply (``RedisReply/error(_:)``), not a thrown error.
package final class RedisClient: Sendable {
    private let host: String
    private let port: Int
    private let loop: EventLoop
    private let credentials: RedisCredentials?
    private let state: LoopBound<State>
    private let sent = Atomic<Int>(0)

    /// The commands sent so far (each is one round trip: Redis answers each; AUTH not counted).
    package var commandsSent: Int { sent.load(ordering: .relaxed) }

    /// Loop-thread state.
    private final class State {
        var connection: RedisConnection?
        var connected = false
        /// Commands waiting for the connection to come up.
        var waiting: [(arguments: [[UInt8]], reply: (Result<RedisReply, RedisClientError>) -> Void)] = []
        /// Commands sent on the connection, in order (Redis answers in order).
        var sent = 0
        var replies: [Int: (Result<RedisReply, RedisClientError>) -> Void] = [:]
        var closed = false
    }

    /// A client of the Redis server at `host`:`port`, driven by `loop`, sending `credentials`
    /// (if any) before any command on each connection.
    package init(host: String, port: Int, loop: EventLoop, credentials: RedisCredentials? = nil) {
        self.host = host
        self.port = port
        self.loop = loop
        self.credentials = credentials
        state = LoopBound(State(), loop: loop)
    }

    /// Sends one command and returns its reply.
    /// - Throws: ``RedisClientError`` when the server cannot be reached, the connection ends
    ///   before the reply, the client is closed, or the loop is gone.
    package func command(_ arguments: [String]) async throws(RedisClientError) -> RedisReply {
        try await command(arguments.map { Array($0.utf8) })
    }

    /// ``command(_:)-([String])`` with arguments as bytes.
    package func command(_ arguments: [[UInt8]]) async throws(RedisClientError) -> RedisReply {
        sent.add(1, ordering: .relaxed)
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<RedisReply, RedisClientError>, Never>) in
            let state = self.state
            do {
                try loop.execute { [self] in self.enqueue(arguments, on: state.value) { continuation.resume(returning: $0) } }
            } catch {
                continuation.resume(returning: .failure(RedisClientError(message: "The event loop is shut down.")))
            }
        }
        return try result.get()
    }

    /// Closes the connection; commands in flight and later ones fail.
    package func close() async {
        let state = self.state
        let host = self.host
        let port = self.port
        await loop.value(ifShutDown: ()) {
            let current = state.value
            current.closed = true
            current.connection?.close()
            current.connection = nil
            Self.failAll(current, RedisClientError(message: "The Redis client for \(host):\(port) was closed."))
        }
    }

    // MARK: Loop thread

    private func enqueue(_ arguments: [[UInt8]], on state: State, reply: @escaping (Result<RedisReply, RedisClientError>) -> Void) {
        guard !state.closed else {
            reply(.failure(RedisClientError(message: "The Redis client for \(host):\(port) was closed.")))
            return
        }
        if state.connected, let connection = state.connection {
            send(arguments, on: connection, state, reply)
            return
        }
        state.waiting.append((arguments, reply))
        if state.connection == nil { connect(state) }
    }

    private func send(
        _ arguments: [[UInt8]], on connection: RedisConnection, _ state: State, _ reply: @escaping (Result<RedisReply, RedisClientError>) -> Void
    ) {
        let number = state.sent
        state.sent += 1
        state.replies[number] = reply
        let host = self.host
        let port = self.port
        let queued = connection.send(arguments) { [weak state] answer in
            guard let state, let reply = state.replies.removeValue(forKey: number) else { return }
            reply(
                answer.map { .success($0) }
                    ?? .failure(RedisClientError(message: "The connection to Redis at \(host):\(port) ended before its reply.")))
        }
        if !queued, let reply = state.replies.removeValue(forKey: number) {
            reply(.failure(RedisClientError(message: "The command could not be queued to Redis at \(host):\(port).")))
        }
    }

    private func connect(_ state: State) {
        let connection = RedisConnection()
        state.connection = connection
        connection.onStateChange = { [weak self, weak state, weak connection] problem in
            guard let self, let state, let connection, state.connection === connection else { return }
            if let problem {
                state.connection = nil
                state.connected = false
                Self.failAll(state, RedisClientError(message: "Redis at \(self.host):\(self.port): \(problem)."))
            } else if let credentials = self.credentials {
                // AUTH first, and nothing else until Redis accepted it.
                let queued = connection.send(credentials.command.map { Array($0.utf8) }) { [weak self, weak state, weak connection] answer in
                    guard let self, let state, let connection, state.connection === connection else { return }
                    if answer == .status("OK") {
                        self.ready(connection, state)
                    } else {
                        let reason = answer?.errorMessage ?? "no answer"
                        state.connection = nil
                        connection.close()
                        Self.failAll(state, RedisClientError(message: "Redis at \(self.host):\(self.port) refused AUTH: \(reason)."))
                    }
                }
                if !queued { Self.failAll(state, RedisClientError(message: "AUTH could not be queued to Redis at \(self.host):\(self.port).")) }
            } else {
                self.ready(connection, state)
            }
        }
        if let problem = connection.connect(host: host, port: port, loop: loop) {
            state.connection = nil
            Self.failAll(state, RedisClientError(message: "Redis at \(host):\(port): \(problem)."))
        }
    }

    /// The connection is usable: what waited is sent.
    private func ready(_ connection: RedisConnection, _ state: State) {
        state.connected = true
        let waiting = state.waiting
        state.waiting.removeAll()
        for command in waiting { send(command.arguments, on: connection, state, command.reply) }
    }

    private static func failAll(_ state: State, _ error: RedisClientError) {
        let waiting = state.waiting.map(\.reply)
        let replies = state.replies.sorted { $0.key < $1.key }.map(\.value)
        state.waiting.removeAll()
        state.replies.removeAll()
        for reply in waiting + replies { reply(.failure(error)) }
    }
}
