import AmplifyConcurrency
import AmplifyCrypto
import AmplifyEventLoop
import Foundation

/// Receives an OAuth redirect on the loopback interface (RFC 8252 §7.3): a small HTTP listener
/// on `127.0.0.1` and/or `::1` on an `EventLoop` (`LoopTCPListener`s), answering a `GET` of
/// `path` that carries the expected `state` with a page the browser shows and handing its
/// request target (`/callback?code=…&state=…`) to ``next(timeout:)``.
///
/// What it refuses, and keeps listening after: a redirect whose `state` is not the sign-in's
/// (a forged or stale one, an `error=` redirect included) gets 400 and is not delivered; other
/// paths get 404; requests that are not HTTP get 400; request heads over 16 KiB are dropped. At
/// most `maxConnections` connections are open at once (a new one closes the oldest), and one
/// that has not sent its whole request head within `idleTimeout` of being accepted is closed,
/// so idle connections can neither exhaust the process's files nor keep the real redirect out.
///
/// The listeners and connections live on the loop thread; ``close()`` (or the loop's shutdown)
/// closes them.
package final class LoopbackRedirectReceiver: @unchecked Sendable {
    // @unchecked Sendable: `listeners`, `connections`, `sweeper` and `nextSerial` are touched only
    // on the loop thread; `outcome` is behind its lock (`Locked`); `port` is written on the loop
    // thread before `start` resumes its caller and never again; the rest are constants.

    private let loop: EventLoop
    private let path: String
    private let page: String
    private let expectedState: String?
    private let maxConnections: Int
    private let idleTimeout: Duration
    private var listeners: [LoopTCPListener] = []
    private var connections: [ObjectIdentifier: Connection] = [:]
    private var nextSerial = 0
    private var sweeper: LoopTimer?
    private let outcome = Locked<Outcome>(Outcome())
    /// The port it listens on (the one asked for, or the one the system picked for 0).
    package private(set) var port: Int = 0

    private struct Outcome {
        var targets: [String] = []
        var waiter: CheckedContinuation<String, any Error>?
        var closed = false
        /// The number of the latest ``next(timeout:)`` call, and the error its timer or its
        /// cancellation brought before it waited (kept for it instead of being lost, which left
        /// the call waiting for ever).
        var call = 0
        var failure: (any Error)?
    }

    private init(loop: EventLoop, path: String, page: String, expectedState: String?, maxConnections: Int, idleTimeout: Duration) {
        self.loop = loop
        self.path = path
        self.page = page
        self.expectedState = expectedState
        self.maxConnections = max(1, maxConnections)
        self.idleTimeout = idleTimeout
    }

    /// Listens on `hosts` (numeric loopback addresses) at `port` (0: any free port) for `GET path`.
    /// - Parameters:
    ///   - loop: the loop it runs on.
    ///   - hosts: the addresses to listen on (`127.0.0.1`, `::1`, or both for `localhost`).
    ///   - port: the port (0: any free one, read back from ``port``).
    ///   - path: the redirect's path.
    ///   - page: the HTML the browser shows after the redirect.
    ///   - expectedState: the `state` a redirect must carry to be delivered (`nil`: any).
    ///   - maxConnections: how many connections may be open at once.
    ///   - idleTimeout: how long a connection may take to send its request.
    /// - Throws: `EventLoopError` when the port is taken or the loop is shut down.
    package static func start(
        loop: EventLoop, hosts: [String] = ["127.0.0.1"], port: Int, path: String, page: String, expectedState: String? = nil,
        maxConnections: Int = 64, idleTimeout: Duration = .seconds(10)
    ) async throws -> LoopbackRedirectReceiver {
        let receiver = LoopbackRedirectReceiver(
            loop: loop, path: path.isEmpty ? "/" : path, page: page, expectedState: expectedState, maxConnections: maxConnections,
            idleTimeout: idleTimeout)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            do {
                try loop.execute {
                    do {
                        try receiver.listenOnLoop(hosts: hosts.isEmpty ? ["127.0.0.1"] : hosts, port: port)
                        continuation.resume()
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
        return receiver
    }

    /// The request target of the next redirect (`/callback?code=…`), waiting up to `timeout`.
    /// - Throws: `EventLoopError.shutDown` after ``close()``, `CancellationError` when the
    ///   task is cancelled, ``LoopbackRedirectReceiver/TimedOut`` after `timeout`.
    package func next(timeout: Duration) async throws -> String {
        let call = outcome.withLock { state -> Int in
            state.call += 1
            state.failure = nil
            return state.call
        }
        let timer = try loop.scheduleTimer(after: timeout) { [weak self] in self?.fail(call, with: TimedOut()) }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
                let ready: Result<String, any Error>? = outcome.withLock { state in
                    if !state.targets.isEmpty { return .success(state.targets.removeFirst()) }
                    if state.closed { return .failure(EventLoopError.shutDown) }
                    if let failure = state.failure { return .failure(failure) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            fail(call, with: CancellationError())
        }
    }

    /// Ends `call` of ``next(timeout:)`` with `error`: its waiter now, or, when it does not wait
    /// yet, as soon as it would. A later call is not touched.
    private func fail(_ call: Int, with error: any Error) {
        let waiter = outcome.withLock { state -> CheckedContinuation<String, any Error>? in
            guard state.call == call else { return nil }
            guard let waiter = state.waiter else {
                if state.failure == nil { state.failure = error }
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(throwing: error)
    }

    /// How many connections are open now.
    package func openConnectionCount() async -> Int {
        await loop.value(ifShutDown: 0) { [self] in connections.count }
    }

    /// No redirect came in time.
    package struct TimedOut: Error, CustomStringConvertible {
        /// "no redirect arrived in time".
        package var description: String { "no redirect arrived in time" }
    }

    /// Stops listening and closes every connection. Safe from any thread; a waiter gets
    /// `EventLoopError.shutDown`.
    package func close() async {
        finish(with: EventLoopError.shutDown)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            do {
                try loop.execute { [self] in
                    closeOnLoop()
                    continuation.resume()
                }
            } catch {
                continuation.resume()
            }
        }
    }

    /// Marks the receiver closed; a waiter gets `error`.
    private func finish(with error: any Error) {
        let waiter = outcome.withLock { state -> CheckedContinuation<String, any Error>? in
            state.closed = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(throwing: error)
    }

    private func deliver(_ target: String) {
        let waiter = outcome.withLock { state -> CheckedContinuation<String, any Error>? in
            guard let waiter = state.waiter else {
                state.targets.append(target)
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: target)
    }

    // MARK: Loop thread

    /// Listens on each of `hosts` at the same port. The first must work; another that fails
    /// (no IPv6 on this machine, for `localhost`'s `::1`) is left out.
    private func listenOnLoop(hosts: [String], port requested: Int) throws(EventLoopError) {
        for (index, host) in hosts.enumerated() {
            do throws(EventLoopError) {
                let listener = try LoopTCPListener(loop: loop, host: host, port: index == 0 ? requested : port, backlog: 16) { [weak self] result in
                    guard case .success(let tcp) = result else { return }
                    guard let self else {
                        tcp.close()
                        return
                    }
                    self.accept(tcp)
                }
                listeners.append(listener)
                if index == 0 { port = listener.port }
            } catch {
                if index == 0 { throw error }
            }
        }
        // One sweep for every connection's idle deadline, a few times per timeout.
        let interval = max(Duration.milliseconds(10), min(idleTimeout / 4, .seconds(1)))
        sweeper = try loop.scheduleTimer(after: interval, repeating: interval) { [weak self] in self?.sweep() }
    }

    private func accept(_ tcp: LoopTCPConnection) {
        // At the cap, the oldest connection makes room: a browser sends its request at once, so
        // the oldest is the likeliest to be idle, and the real redirect always gets in.
        while connections.count >= maxConnections, let oldest = connections.values.min(by: { $0.serial < $1.serial }) {
            oldest.close()
        }
        nextSerial += 1
        let connection = Connection(owner: self, tcp: tcp, serial: nextSerial, deadline: ContinuousClock.now + idleTimeout)
        connections[ObjectIdentifier(connection)] = connection
        connection.startReading()
    }

    /// Closes every connection still open at its deadline (one answered long ago whose client
    /// does not read the answer included).
    private func sweep() {
        let now = ContinuousClock.now
        for connection in connections.values where connection.deadline <= now {
            connection.close()
        }
    }

    fileprivate func received(_ request: [UInt8], on connection: Connection) {
        switch Self.decide(request, path: path, expectedState: expectedState) {
        case .badRequest:
            connection.respond(status: "400 Bad Request", body: "Bad request.")
        case .notFound:
            connection.respond(status: "404 Not Found", body: "Not found.")
        case .forged:
            // A forged or stale redirect (an error= one too): refused, and the real one is still
            // awaited.
            connection.respond(status: "400 Bad Request", body: "This redirect does not belong to the sign-in under way; it was ignored.")
        case .redirect(let target):
            connection.respond(status: "200 OK", body: page, contentType: "text/html; charset=utf-8")
            deliver(target)
        }
    }

    /// What the listener does with a request head.
    package enum Decision: Equatable, Sendable {
        /// Not an HTTP request line: 400.
        case badRequest
        /// Not `GET` of the redirect path: 404.
        case notFound
        /// The redirect path without the expected `state` (none, two, or another): 400, ignored.
        case forged
        /// The redirect: its request target is delivered.
        case redirect(String)
    }

    /// Reads a complete request head (`GET /callback?code=… HTTP/1.1` and headers): the whole of
    /// the listener's parsing of outside input, pure so that it can be tested and fuzzed alone.
    /// - Parameters:
    ///   - request: the head's bytes, up to and including its blank line.
    ///   - path: the redirect's path.
    ///   - expectedState: the `state` a redirect must carry (`nil`: any).
    /// - Returns: what to answer.
    package static func decide(_ request: [UInt8], path: String, expectedState: String?) -> Decision {
        let line = request.prefix { $0 != UInt8(ascii: "\r") }
        let parts = String(decoding: line, as: UTF8.self).split(separator: " ")
        guard parts.count == 3, parts[2].hasPrefix("HTTP/") else { return .badRequest }
        let target = String(parts[1])
        let requestPath = target.split(separator: "?", maxSplits: 1).first.map(String.init) ?? target
        guard parts[0] == "GET", requestPath == path else { return .notFound }
        guard carriesState(target, expectedState) else { return .forged }
        return .redirect(target)
    }

    /// Whether `target`'s `state` is the expected one (compared in constant time), or no state
    /// is expected.
    private static func carriesState(_ target: String, _ expectedState: String?) -> Bool {
        guard let expectedState else { return true }
        let items = URLComponents(string: "http://127.0.0.1" + target)?.queryItems ?? []
        let states = items.filter { $0.name == "state" }
        guard states.count == 1, let state = states[0].value else { return false }
        return Digest.constantTimeEquals(Array(state.utf8), Array(expectedState.utf8))
    }

    fileprivate func closed(_ connection: Connection) {
        connections.removeValue(forKey: ObjectIdentifier(connection))
    }

    private func closeOnLoop() {
        sweeper?.cancel()
        sweeper = nil
        for connection in connections.values { connection.close() }
        connections.removeAll()
        for listener in listeners { listener.close() }
        listeners.removeAll()
    }
}

/// Collects a request head as its bytes arrive in chunks: complete at its blank line (CRLF
/// CRLF), refused past 16 KiB.
package struct RequestHeadScanner: Sendable {
    /// The longest head accepted.
    package static let limit = 16 * 1024
    /// The bytes so far.
    package private(set) var buffer: [UInt8] = []

    /// What the scanner has after a chunk.
    package enum State: Equatable, Sendable {
        /// No blank line yet.
        case incomplete
        /// The head ended (the buffer holds it and anything after it in the same chunk).
        case complete
        /// Over ``RequestHeadScanner/limit`` without a blank line.
        case tooLarge
    }

    /// An empty scanner.
    package init() {}

    /// Adds a chunk.
    /// - Parameter bytes: the chunk.
    /// - Returns: whether the head is complete, still coming, or too large.
    package mutating func append(_ bytes: [UInt8]) -> State {
        // Look for the blank line only where it can newly end: from 3 bytes before this chunk.
        let searchFrom = max(0, buffer.count - 3)
        buffer.append(contentsOf: bytes)
        if buffer.count > Self.limit { return .tooLarge }
        guard buffer.count >= 4 else { return .incomplete }
        let ends = (searchFrom...(buffer.count - 4)).contains { start in
            buffer[start] == 13 && buffer[start + 1] == 10 && buffer[start + 2] == 13 && buffer[start + 3] == 10
        }
        return ends ? .complete : .incomplete
    }
}

/// One accepted connection: reads a request head, writes one answer, closes. Loop thread only.
private final class Connection {
    weak var owner: LoopbackRedirectReceiver?
    let tcp: LoopTCPConnection
    /// Its place in the order of accepts (the oldest is closed first at the cap).
    let serial: Int
    /// When it is closed if its request head has not arrived.
    let deadline: ContinuousClock.Instant
    private var scanner = RequestHeadScanner()
    private var answered = false
    private var open = true

    init(owner: LoopbackRedirectReceiver, tcp: LoopTCPConnection, serial: Int, deadline: ContinuousClock.Instant) {
        self.owner = owner
        self.tcp = tcp
        self.serial = serial
        self.deadline = deadline
    }

    func startReading() {
        do {
            try tcp.startReading { [weak self] event in
                guard let self else { return }
                switch event {
                case .bytes(let bytes): self.append(bytes)
                case .end, .failed: self.close()
                }
            }
        } catch {
            close()
        }
    }

    private func append(_ bytes: [UInt8]) {
        guard !answered else { return }
        switch scanner.append(bytes) {
        case .incomplete: return
        case .tooLarge: close()
        case .complete:
            answered = true
            owner?.received(scanner.buffer, on: self)
        }
    }

    /// Writes a complete answer, then closes.
    func respond(status: String, body: String, contentType: String = "text/plain; charset=utf-8") {
        answered = true
        let bodyBytes = Array(body.utf8)
        let head =
            "HTTP/1.1 \(status)\r\nContent-Type: \(contentType)\r\nContent-Length: \(bodyBytes.count)\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n"
        tcp.stopReading()
        tcp.write(Array(head.utf8) + bodyBytes) { [self] _ in close() }
    }

    func close() {
        guard open else { return }
        open = false
        owner?.closed(self)
        tcp.close()
    }
}
