import CLibUV

#if canImport(Glibc)
    import Glibc
#endif

/// A listening TCP socket on an ``EventLoop`` (a libuv `uv_tcp_t`): binds a numeric address and a
/// port, and hands every connection it accepts to its callback as a ``LoopTCPConnection``.
///
/// Loop thread only: create it, read its properties and close it on the loop thread (inside
/// ``EventLoop/execute(_:)`` or another loop callback); its callback runs there too. The handle
/// lives at a stable heap address and is freed in libuv's close callback. The loop closes a
/// listener still open when it shuts down. Closing a listener does not close the connections it
/// accepted: each is a handle of its own.
public final class LoopTCPListener: LoopOwnedHandle {
    private unowned let loop: EventLoop
    private var handle: UnsafeMutablePointer<uv_tcp_t>?
    private let onAccept: (Result<LoopTCPConnection, EventLoopError>) -> Void
    /// The address it listens on, as given (`"127.0.0.1"`, `"::1"`).
    public let host: String
    /// The port it listens on: the one asked for, or the one the system chose when asked for 0.
    public private(set) var port: Int = 0

    /// Binds `host`:`port` and starts listening. Loop thread only.
    ///
    /// - Parameters:
    ///   - loop: the loop it runs on (the calling thread must be this loop's thread).
    ///   - host: a numeric IPv4 or IPv6 address (`"127.0.0.1"`, the default, or `"::1"`); names
    ///     are not resolved.
    ///   - port: the port, or 0 for any free one (read it back from ``port``).
    ///   - backlog: how many connections the system queues before they are accepted.
    ///   - onAccept: runs on the loop thread with each accepted connection (not reading yet: call
    ///     ``LoopTCPConnection/startReading(_:)``), or with the error libuv reported for an
    ///     accept that failed (the listener keeps listening). The callback owns the connection and
    ///     must close it; one that is dropped stays open until the loop shuts down.
    /// - Throws: ``EventLoopError/libuv(operation:code:message:)`` for an address that is not
    ///   numeric, a port out of range, or a port already taken; ``EventLoopError/shutDown`` once
    ///   the loop is shutting down.
    public init(
        loop: EventLoop, host: String = "127.0.0.1", port: Int = 0, backlog: Int = 128,
        onAccept: @escaping (Result<LoopTCPConnection, EventLoopError>) -> Void
    ) throws(EventLoopError) {
        self.loop = loop
        self.host = host
        self.onAccept = onAccept
        let described = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let operation = "listening on \(described)"
        guard loop.acceptsHandles else { throw EventLoopError.shutDown }
        guard var address = SocketAddress(host: host, port: port) else {
            let code = UV_EINVAL.rawValue
            throw EventLoopError.libuv(
                operation: operation + " (a numeric IPv4 or IPv6 address and a port 0–65535)", code: code, message: uvErrorMessage(code))
        }
        let tcp: UnsafeMutablePointer<uv_tcp_t> = try openHandle("uv_tcp_init") { uv_tcp_init(loop.uvLoop, $0) }
        retainOwner(self, in: tcp)
        handle = tcp
        loop.register(self)
        let bound = address.withSockaddr { uv_tcp_bind(tcp, $0, 0) }
        // libuv reports a port in use from uv_listen (it delays EADDRINUSE from bind).
        let listening =
            bound == 0
            ? uv_listen(streamOf(tcp), Int32(clamping: max(1, backlog))) { server, status in
                guard let server, let data = server.pointee.data,
                    let owner = Unmanaged<AnyObject>.fromOpaque(data).takeUnretainedValue() as? LoopTCPListener
                else { return }
                owner.accept(from: server, status: status)
            } : bound
        guard listening == 0 else {
            close()
            throw EventLoopError.libuv(operation: operation, code: listening, message: uvErrorMessage(listening))
        }
        var actual = SocketAddress()
        let named = actual.withMutableSockaddr { pointer, length in uv_tcp_getsockname(tcp, pointer, length) }
        guard named == 0 else {
            close()
            throw EventLoopError.libuv(operation: "uv_tcp_getsockname", code: named, message: uvErrorMessage(named))
        }
        self.port = actual.port
    }

    /// Whether it is still listening (``close()`` not called, the loop not shut down).
    public var isOpen: Bool { handle != nil }

    /// Stops listening and closes the socket; its memory is freed in libuv's close callback. No
    /// accept callback runs after it returns. A second call does nothing. Loop thread only.
    public func close() {
        loop.unregister(self)
        closeOnLoop()
    }

    func closeOnLoop() {
        guard let tcp = handle else { return }
        handle = nil
        closeAndFree(tcp)
    }

    private func accept(from server: UnsafeMutablePointer<uv_stream_t>, status: Int32) {
        guard handle != nil else { return }
        guard status == 0 else {
            onAccept(.failure(.libuv(operation: "accepting a connection on \(host):\(port)", code: status, message: uvErrorMessage(status))))
            return
        }
        do throws(EventLoopError) {
            onAccept(.success(try LoopTCPConnection(acceptingFrom: server, loop: loop)))
        } catch {
            onAccept(.failure(error))
        }
    }
}

/// One TCP connection on an ``EventLoop`` (a libuv `uv_tcp_t`), as accepted by a
/// ``LoopTCPListener``: reads with a callback, writes with a completion, closes.
///
/// Loop thread only: every method is called, and every callback runs, on the loop thread. The
/// handle lives at a stable heap address and is freed in libuv's close callback; the connection
/// object stays alive until then even if nothing else keeps it. The loop closes a connection
/// still open when it shuts down (without a last read callback; pending writes complete with
/// `UV_ECANCELED`).
public final class LoopTCPConnection: LoopOwnedHandle {
    /// What a read delivers.
    public enum ReadEvent {
        /// Bytes the peer sent (never empty).
        case bytes([UInt8])
        /// The peer closed its side; no more reads follow. The connection stays open for writes
        /// until ``LoopTCPConnection/close()``.
        case end
        /// The read failed (a reset connection, for example); no more reads follow. Close the
        /// connection.
        case failed(EventLoopError)
    }

    /// The most read at once (libuv's suggestion is 64 KiB).
    static let readBufferSize = 64 * 1024

    private unowned let loop: EventLoop
    private var handle: UnsafeMutablePointer<uv_tcp_t>?
    private var onRead: ((ReadEvent) -> Void)?
    /// Allocated on the first read, freed in `deinit` (after the close callback, since the
    /// handle's `data` keeps this object alive until then).
    private var readBuffer: UnsafeMutableRawBufferPointer?

    /// Accepts the pending connection of `server`. Loop thread only.
    init(acceptingFrom server: UnsafeMutablePointer<uv_stream_t>, loop: EventLoop) throws(EventLoopError) {
        self.loop = loop
        guard loop.acceptsHandles else { throw EventLoopError.shutDown }
        let tcp: UnsafeMutablePointer<uv_tcp_t> = try openHandle("uv_tcp_init") { uv_tcp_init(loop.uvLoop, $0) }
        retainOwner(self, in: tcp)
        handle = tcp
        let accepted = uv_accept(server, streamOf(tcp))
        guard accepted == 0 else {
            closeOnLoop()
            throw EventLoopError.libuv(operation: "uv_accept", code: accepted, message: uvErrorMessage(accepted))
        }
        loop.register(self)
    }

    deinit {
        readBuffer?.deallocate()
    }

    /// Whether the connection is open (``close()`` not called, the loop not shut down).
    public var isOpen: Bool { handle != nil }

    /// Whether reads are being delivered: between ``startReading(_:)`` and ``stopReading()``, the
    /// end of the stream, a read error or ``close()``.
    public private(set) var isReading = false

    /// Starts delivering what the peer sends to `callback`, on the loop thread, until
    /// ``stopReading()``, ``close()``, the end of the stream or a read error (the last two are
    /// delivered as ``ReadEvent/end`` and ``ReadEvent/failed(_:)``). Replaces the callback of an
    /// earlier call. Loop thread only.
    /// - Throws: ``EventLoopError/libuv(operation:code:message:)`` when the connection is closed
    ///   or libuv refuses to read (after the end of the stream, for example).
    public func startReading(_ callback: @escaping (ReadEvent) -> Void) throws(EventLoopError) {
        let operation = "reading from a TCP connection"
        guard let tcp = handle else {
            let code = UV_ENOTCONN.rawValue
            throw EventLoopError.libuv(operation: operation, code: code, message: uvErrorMessage(code))
        }
        onRead = callback
        guard !isReading else { return }
        let started = uv_read_start(
            streamOf(tcp),
            { handle, _, buffer in
                guard let buffer else { return }
                guard let handle, let data = handle.pointee.data,
                    let owner = Unmanaged<AnyObject>.fromOpaque(data).takeUnretainedValue() as? LoopTCPConnection,
                    let storage = owner.readStorage().baseAddress
                else {
                    buffer.pointee = uv_buf_init(nil, 0)  // libuv then reports UV_ENOBUFS
                    return
                }
                buffer.pointee = uv_buf_init(storage.assumingMemoryBound(to: CChar.self), UInt32(LoopTCPConnection.readBufferSize))
            },
            { stream, count, buffer in
                guard let stream, let data = stream.pointee.data,
                    let owner = Unmanaged<AnyObject>.fromOpaque(data).takeUnretainedValue() as? LoopTCPConnection
                else { return }
                owner.didRead(count: count, base: buffer?.pointee.base)
            })
        guard started == 0 else {
            onRead = nil
            throw EventLoopError.libuv(operation: operation, code: started, message: uvErrorMessage(started))
        }
        isReading = true
    }

    /// Stops delivering reads (what the peer sends waits in the socket until the next
    /// ``startReading(_:)``); no read callback runs after it returns. Loop thread only.
    public func stopReading() {
        onRead = nil
        guard isReading else { return }
        isReading = false
        if let tcp = handle { uv_read_stop(streamOf(tcp)) }
    }

    /// Writes `bytes` (copied first, so the array may change at once), after every earlier write.
    /// Loop thread only.
    ///
    /// - Parameters:
    ///   - bytes: what to send; an empty array writes nothing and completes.
    ///   - completion: runs on the loop thread with `nil` once the system has taken every
    ///   byte, or with the error: `UV_ECANCELED` when the connection closed first, another libuv
    ///   code when the write failed. When the write cannot even start (the connection is closed),
    ///   it runs before `write` returns.
    public func write(_ bytes: [UInt8], completion: ((EventLoopError?) -> Void)? = nil) {
        let operation = "writing to a TCP connection"
        guard let tcp = handle, bytes.count <= Int(UInt32.max) else {
            let code = handle == nil ? UV_ENOTCONN.rawValue : UV_E2BIG.rawValue
            completion?(.libuv(operation: operation, code: code, message: uvErrorMessage(code)))
            return
        }
        let request = WriteRequest(bytes, completion: completion, operation: operation)
        let started = request.start(on: streamOf(tcp))
        if started != 0 {
            completion?(.libuv(operation: operation, code: started, message: uvErrorMessage(started)))
        }
    }

    /// Closes the connection: reading stops at once (no read callback runs after it returns),
    /// writes still pending complete with `UV_ECANCELED`, and the handle's memory is freed in
    /// libuv's close callback. A second call does nothing. Loop thread only.
    public func close() {
        loop.unregister(self)
        closeOnLoop()
    }

    func closeOnLoop() {
        guard let tcp = handle else { return }
        handle = nil
        onRead = nil
        isReading = false
        uv_read_stop(streamOf(tcp))
        closeAndFree(tcp)
    }

    private func readStorage() -> UnsafeMutableRawBufferPointer {
        if let readBuffer { return readBuffer }
        let made = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readBufferSize, alignment: 16)
        readBuffer = made
        return made
    }

    private func didRead(count: Int, base: UnsafeMutablePointer<CChar>?) {
        if count > 0, let base {
            let bytes = [UInt8](UnsafeRawBufferPointer(start: base, count: count))
            onRead?(.bytes(bytes))
            return
        }
        // 0: nothing to read now (EAGAIN), not the end.
        guard count < 0 else { return }
        let callback = onRead
        stopReading()
        let code = Int32(clamping: count)
        if code == UV_EOF.rawValue {
            callback?(.end)
        } else {
            callback?(.failed(.libuv(operation: "reading from a TCP connection", code: code, message: uvErrorMessage(code))))
        }
    }
}

/// A `uv_write_t` and a copy of the bytes it writes, alive until the write's callback (the
/// request's `data` holds the retain). Loop thread only.
private final class WriteRequest {
    private let request = UnsafeMutablePointer<uv_write_t>.allocate(capacity: 1)
    private let storage: UnsafeMutableRawBufferPointer
    private let count: Int
    private let completion: ((EventLoopError?) -> Void)?
    private let operation: String

    init(_ bytes: [UInt8], completion: ((EventLoopError?) -> Void)?, operation: String) {
        count = bytes.count
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        bytes.withUnsafeBytes { source in copy.copyMemory(from: source) }
        storage = copy
        self.completion = completion
        self.operation = operation
    }

    deinit {
        storage.deallocate()
        request.deallocate()
    }

    /// Starts the write; on failure (a nonzero libuv code) no callback will come.
    func start(on stream: UnsafeMutablePointer<uv_stream_t>) -> Int32 {
        guard let base = storage.baseAddress else { return UV_EINVAL.rawValue }
        let retained = Unmanaged.passRetained(self)
        request.pointee.data = retained.toOpaque()
        var buffer = uv_buf_init(base.assumingMemoryBound(to: CChar.self), UInt32(count))
        let started = uv_write(request, stream, &buffer, 1) { request, status in
            guard let request, let data = request.pointee.data else { return }
            Unmanaged<WriteRequest>.fromOpaque(data).takeRetainedValue().finish(status)
        }
        if started != 0 { retained.release() }
        return started
    }

    private func finish(_ status: Int32) {
        completion?(status == 0 ? nil : .libuv(operation: operation, code: status, message: uvErrorMessage(status)))
    }
}

/// An IPv4 or IPv6 socket address in a `sockaddr_storage`.
struct SocketAddress {
    private var storage = sockaddr_storage()

    init() {}

    /// Parses a numeric address; `nil` for a name or a port outside 0–65535.
    init?(host: String, port: Int) {
        guard (0...65535).contains(port) else { return nil }
        let parsed = withUnsafeMutablePointer(to: &storage) { pointer -> Bool in
            let raw = UnsafeMutableRawPointer(pointer)
            if uv_ip4_addr(host, Int32(port), raw.assumingMemoryBound(to: sockaddr_in.self)) == 0 { return true }
            return uv_ip6_addr(host, Int32(port), raw.assumingMemoryBound(to: sockaddr_in6.self)) == 0
        }
        guard parsed else { return nil }
    }

    /// The port, from whichever family the address is.
    var port: Int {
        var copy = storage
        return withUnsafePointer(to: &copy) { pointer in
            let raw = UnsafeRawPointer(pointer)
            switch Int32(pointer.pointee.ss_family) {
            case AF_INET6: return Int(UInt16(bigEndian: raw.assumingMemoryBound(to: sockaddr_in6.self).pointee.sin6_port))
            default: return Int(UInt16(bigEndian: raw.assumingMemoryBound(to: sockaddr_in.self).pointee.sin_port))
            }
        }
    }

    mutating func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>) -> R) -> R {
        withUnsafePointer(to: &storage) { pointer in
            UnsafeRawPointer(pointer).withMemoryRebound(to: sockaddr.self, capacity: 1, body)
        }
    }

    mutating func withMutableSockaddr<R>(_ body: (UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<Int32>) -> R) -> R {
        var length = Int32(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &storage) { pointer in
            UnsafeMutableRawPointer(pointer).withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, &length) }
        }
    }
}

/// Views a TCP handle as the stream it is.
private func streamOf(_ tcp: UnsafeMutablePointer<uv_tcp_t>) -> UnsafeMutablePointer<uv_stream_t> {
    UnsafeMutableRawPointer(tcp).assumingMemoryBound(to: uv_stream_t.self)
}
