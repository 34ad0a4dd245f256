import AmplifyConcurrency
import AmplifyEventLoop
import Foundation

/// Receives an OAuth redirect on the loopback interface (RFC 8252 §7.3): a small HTTP listener
/// on `127.0.0.1` on an `EventLoop` (a `LoopTCPListener`), answering the first `GET` of
/// `path` with a page the browser shows and handing its request target
/// (`/callback?code=…&state=…`) to ``next(timeout:)``. Other paths get 404; requests over 16 KiB
/// or not HTTP are dropped.
///
/// The listener and its connections live on the loop thread; ``close()`` (or the loop's
/// shutdown) closes them.
package final class LoopbackRedirectReceiver: @unchecked Sendable {
    // @unchecked Sendable: `listener` and `connections` are touched only on the loop thread;
    // `outcome` is behind its lock (`Locked`); `port` is written on the loop thread before
    // `start` resumes its caller and never again.

    private let loop: EventLoop
    private let path: String
    private let page: String
    private var listener: LoopTCPListener?
    private var connections: [ObjectIdentifier: Connection] = [:]
    private let outcome = Locked<Outcome>(Outcome())
    /// The port it listens on (the one asked for, or the one the system picked for 0).
    package private(set) var port: Int = 0

    private struct Outcome {
        var targets: [String] = []
        var waiter: CheckedContinuation<String, any Error>?
        var closed = false
    }

    private init(loop: EventLoop, path: String, page: String) {
        self.loop = loop
        self.path = path
        self.page = page
    }

    /// Listens on `127.0.0.1:port` (0: any free port) for `GET path`.
    /// - Parameter page: the HTML the browser shows after the redirect.
    /// - Throws: `EventLoopError` when the port is taken or the loop is shut down.
    package static func start(loop: EventLoop, port: Int, path: String, page: String) async throws -> LoopbackRedirectReceiver {
        let receiver = LoopbackRedirectReceiver(loop: loop, path: path.isEmpty ? "/" : path, page: page)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            do {
                try loop.execute {
                    do {
                        try receiver.listenOnLoop(port: port)
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
        let timer = try loop.scheduleTimer(after: timeout) { [weak self] in self?.finish(with: TimedOut()) }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
                let ready: Result<String, any Error>? = outcome.withLock { state in
                    if !state.targets.isEmpty { return .success(state.targets.removeFirst()) }
                    if state.closed { return .failure(EventLoopError.shutDown) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            finish(with: CancellationError())
        }
    }

    /// No redirect came in time.
    package struct TimedOut: Error, CustomStringConvertible {
        /// "no redirect arrived in time".
        package var description: String { "no redirect arrived in time" }
    }

    /// Stops listening and closes every connection. Safe from any thread; a waiter gets
    /// `EventLoopError.shutDown`.
    package func close() async {
        finish(with: EventLoopError.shutDown, closing: true)
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

    private func finish(with error: any Error, closing: Bool = false) {
        let waiter = outcome.withLock { state -> CheckedContinuation<String, any Error>? in
            if closing { state.closed = true }
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

    private func listenOnLoop(port requested: Int) throws(EventLoopError) {
        let listener = try LoopTCPListener(loop: loop, host: "127.0.0.1", port: requested, backlog: 16) { [weak self] result in
            guard case .success(let tcp) = result else { return }
            guard let self else {
                tcp.close()
                return
            }
            self.accept(tcp)
        }
        self.listener = listener
        port = listener.port
    }

    private func accept(_ tcp: LoopTCPConnection) {
        let connection = Connection(owner: self, tcp: tcp)
        connections[ObjectIdentifier(connection)] = connection
        connection.startReading()
    }

    fileprivate func received(_ request: [UInt8], on connection: Connection) {
        // "GET /callback?code=… HTTP/1.1"
        let line = request.prefix { $0 != UInt8(ascii: "\r") }
        let parts = String(decoding: line, as: UTF8.self).split(separator: " ")
        guard parts.count == 3, parts[2].hasPrefix("HTTP/") else {
            connection.respond(status: "400 Bad Request", body: "Bad request.")
            return
        }
        let target = String(parts[1])
        let requestPath = target.split(separator: "?", maxSplits: 1).first.map(String.init) ?? target
        guard parts[0] == "GET", requestPath == path else {
            connection.respond(status: "404 Not Found", body: "Not found.")
            return
        }
        connection.respond(status: "200 OK", body: page, contentType: "text/html; charset=utf-8")
        deliver(target)
    }

    fileprivate func closed(_ connection: Connection) {
        connections.removeValue(forKey: ObjectIdentifier(connection))
    }

    private func closeOnLoop() {
        for connection in connections.values { connection.close() }
        connections.removeAll()
        listener?.close()
        listener = nil
    }
}

/// One accepted connection: reads a request head, writes one answer, closes. Loop thread only.
private final class Connection {
    static let limit = 16 * 1024
    weak var owner: LoopbackRedirectReceiver?
    let tcp: LoopTCPConnection
    private var buffer: [UInt8] = []
    private var answered = false
    private var open = true

    init(owner: LoopbackRedirectReceiver, tcp: LoopTCPConnection) {
        self.owner = owner
        self.tcp = tcp
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
        // Look for the blank line only where it can newly end: from 3 bytes before this chunk.
        let searchFrom = max(0, buffer.count - 3)
        buffer.append(contentsOf: bytes)
        if buffer.count > Self.limit {
            close()
            return
        }
        let headEnds = buffer.count >= 4 && (searchFrom...(buffer.count - 4)).contains { start in
            buffer[start] == 13 && buffer[start + 1] == 10 && buffer[start + 2] == 13 && buffer[start + 3] == 10
        }
        guard headEnds else { return }
        answered = true
        owner?.received(buffer, on: self)
    }

    /// Writes a complete answer, then closes.
    func respond(status: String, body: String, contentType: String = "text/plain; charset=utf-8") {
        answered = true
        let bodyBytes = Array(body.utf8)
        let head = "HTTP/1.1 \(status)\r\nContent-Type: \(contentType)\r\nContent-Length: \(bodyBytes.count)\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n"
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
