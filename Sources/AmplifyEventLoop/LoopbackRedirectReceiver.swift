import AmplifyConcurrency
import CLibUV
import Foundation

/// Receives an OAuth redirect on the loopback interface (RFC 8252 §7.3): a small HTTP listener
/// on `127.0.0.1` on an ``EventLoop`` (libuv TCP), answering the first `GET` of `path` with a
/// page the browser shows and handing its request target (`/callback?code=…&state=…`) to
/// ``next(timeout:)``. Other paths get 404; requests over 16 KiB or not HTTP are dropped.
///
/// The listener and its connections live on the loop thread; ``close()`` (or the loop's
/// shutdown) closes them.
public final class LoopbackRedirectReceiver: @unchecked Sendable, LoopOwnedHandle {
    // @unchecked Sendable: `listener` and `connections` are touched only on the loop thread;
    // `outcome` is behind its lock.

    private unowned let loop: EventLoop
    private let path: String
    private let page: String
    private var listener: UnsafeMutablePointer<uv_tcp_t>?
    private var connections: [ObjectIdentifier: Connection] = [:]
    private let outcome = Locked<Outcome>(Outcome())
    /// The port it listens on (the one asked for, or the one the system picked for 0).
    public private(set) var port: Int = 0

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
    /// - Throws: ``EventLoopError`` when the port is taken or the loop is shut down.
    public static func start(loop: EventLoop, port: Int, path: String, page: String) async throws -> LoopbackRedirectReceiver {
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
    /// - Throws: ``EventLoopError/shutDown`` after ``close()``, `CancellationError` when the
    ///   task is cancelled, ``LoopbackRedirectReceiver/TimedOut`` after `timeout`.
    public func next(timeout: Duration) async throws -> String {
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
    public struct TimedOut: Error, CustomStringConvertible {
        /// "no redirect arrived in time".
        public var description: String { "no redirect arrived in time" }
    }

    /// Stops listening and closes every connection. Safe from any thread; a waiter gets
    /// ``EventLoopError/shutDown``.
    public func close() async {
        finish(with: EventLoopError.shutDown, closing: true)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            do {
                try loop.execute { [self] in
                    loop.unregister(self)
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
        guard loop.acceptsHandles else { throw EventLoopError.shutDown }
        guard (0...65_535).contains(requested), let requestedPort = Int32(exactly: requested) else {
            throw EventLoopError.libuv(operation: "listening on 127.0.0.1:\(requested)", code: -EINVAL, message: "the port is not from 0 to 65535")
        }
        let tcp: UnsafeMutablePointer<uv_tcp_t> = try openHandle("uv_tcp_init") { uv_tcp_init(loop.uvLoop, $0) }
        retainOwner(self, in: tcp)
        listener = tcp
        loop.register(self)
        var address = sockaddr_in()
        uv_ip4_addr("127.0.0.1", requestedPort, &address)
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { uv_tcp_bind(tcp, $0, 0) }
        }
        let listening = bound == 0 ? uv_listen(stream(tcp), 16) { server, status in
            guard let server, status == 0, let data = server.pointee.data,
                  let owner = Unmanaged<AnyObject>.fromOpaque(data).takeUnretainedValue() as? LoopbackRedirectReceiver
            else { return }
            owner.accept(server)
        } : bound
        guard listening == 0 else {
            loop.unregister(self)
            closeOnLoop()
            throw EventLoopError.libuv(operation: "listening on 127.0.0.1:\(requested)", code: listening, message: uvErrorMessage(listening))
        }
        var actual = sockaddr_in()
        var length = Int32(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { uv_tcp_getsockname(tcp, $0, &length) }
        }
        port = Int(UInt16(bigEndian: actual.sin_port))
    }

    private func accept(_ server: UnsafeMutablePointer<uv_stream_t>) {
        guard let connection = try? Connection(owner: self, loop: loop.uvLoop), uv_accept(server, stream(connection.tcp)) == 0 else { return }
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

    func closeOnLoop() {
        for connection in connections.values { connection.close() }
        connections.removeAll()
        guard let tcp = listener else { return }
        listener = nil
        closeAndFree(tcp)
    }

    private func stream(_ tcp: UnsafeMutablePointer<uv_tcp_t>) -> UnsafeMutablePointer<uv_stream_t> {
        UnsafeMutableRawPointer(tcp).assumingMemoryBound(to: uv_stream_t.self)
    }
}

/// One accepted connection: reads a request head, writes one answer, closes. Loop thread only.
private final class Connection {
    static let limit = 16 * 1024
    unowned let owner: LoopbackRedirectReceiver
    let tcp: UnsafeMutablePointer<uv_tcp_t>
    private var buffer: [UInt8] = []
    private var answered = false
    private var open = true

    init(owner: LoopbackRedirectReceiver, loop: UnsafeMutablePointer<uv_loop_t>) throws(EventLoopError) {
        self.owner = owner
        tcp = try openHandle("uv_tcp_init") { uv_tcp_init(loop, $0) }
        retainOwner(self, in: tcp)
    }

    private var stream: UnsafeMutablePointer<uv_stream_t> { UnsafeMutableRawPointer(tcp).assumingMemoryBound(to: uv_stream_t.self) }

    func startReading() {
        uv_read_start(stream, { _, suggested, buffer in
            guard let buffer else { return }
            let size = min(suggested, 4096)
            buffer.pointee = uv_buf_init(UnsafeMutablePointer<CChar>.allocate(capacity: size), UInt32(size))
        }, { stream, count, buffer in
            defer { buffer?.pointee.base?.deallocate() }
            guard let stream, let data = stream.pointee.data,
                  let connection = Unmanaged<AnyObject>.fromOpaque(data).takeUnretainedValue() as? Connection
            else { return }
            guard count > 0, let base = buffer?.pointee.base else {
                if count < 0 { connection.close() }
                return
            }
            connection.append(UnsafeRawBufferPointer(start: base, count: count))
        })
    }

    private func append(_ bytes: UnsafeRawBufferPointer) {
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
        owner.received(buffer, on: self)
    }

    /// Writes a complete answer, then closes.
    func respond(status: String, body: String, contentType: String = "text/plain; charset=utf-8") {
        answered = true
        let bodyBytes = Array(body.utf8)
        let head = "HTTP/1.1 \(status)\r\nContent-Type: \(contentType)\r\nContent-Length: \(bodyBytes.count)\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n"
        let bytes = Array(head.utf8) + bodyBytes
        let request = WriteRequest(bytes: bytes, connection: self)
        uv_read_stop(stream)
        let rc = request.start(on: stream)
        if rc != 0 { close() }
    }

    func close() {
        guard open else { return }
        open = false
        owner.closed(self)
        uv_read_stop(stream)
        closeAndFree(tcp)
    }
}

/// A `uv_write_t` and the bytes it writes, alive until the write's callback. Loop thread only.
private final class WriteRequest {
    let bytes: UnsafeMutablePointer<CChar>
    let count: Int
    let connection: Connection
    let request = UnsafeMutablePointer<uv_write_t>.allocate(capacity: 1)

    init(bytes source: [UInt8], connection: Connection) {
        let length = source.count
        let storage = UnsafeMutablePointer<CChar>.allocate(capacity: max(length, 1))
        source.withUnsafeBytes { raw in
            if let base = raw.baseAddress { UnsafeMutableRawPointer(storage).copyMemory(from: base, byteCount: length) }
        }
        count = length
        bytes = storage
        self.connection = connection
    }

    func start(on stream: UnsafeMutablePointer<uv_stream_t>) -> Int32 {
        request.pointee.data = Unmanaged.passRetained(self).toOpaque()
        var buffer = uv_buf_init(bytes, UInt32(count))
        let rc = uv_write(request, stream, &buffer, 1) { request, _ in
            guard let request, let data = request.pointee.data else { return }
            let owner = Unmanaged<WriteRequest>.fromOpaque(data).takeRetainedValue()
            owner.connection.close()
            owner.release()
        }
        if rc != 0 {
            Unmanaged<WriteRequest>.fromOpaque(request.pointee.data).release()
            release()
        }
        return rc
    }

    private func release() {
        bytes.deallocate()
        request.deallocate()
    }
}
