import Amplify
import AmplifyEventLoop
import CCurlShims
import CoreMetrics
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP client on the Amplify event loop: libcurl's multi-socket API driven by libuv (a
/// `LoopPoll` per socket curl opens, one `LoopAlarm` for curl's timeouts), no threads of its own.
/// Many transfers run at once over reused connections; each is `async`, cancellable (cancelling
/// the task aborts the transfer) and may stream its body from a file and its response to a file.
///
/// `send` may be called from any task; progress callbacks run on the loop thread.
///
/// Each attempt is counted in the `amplify_http_*` metrics (`AmplifyMetrics`) when a metrics
/// backend is bootstrapped, and logged at verbose level (category "HTTP": method, scheme, host
/// and path, never the query, headers or bodies, which carry signatures and tokens).
public final class HTTPClient: @unchecked Sendable {
    // @unchecked Sendable: every mutable field below is touched only on the loop thread (send
    // and cancellation hop there with loop.execute); `metrics` is immutable and locks its own;
    // `transferIDs` is atomic.
    /// The loop transfers run on.
    public let loop: EventLoop
    /// `nil` when no metrics backend is bootstrapped.
    let metrics: HTTPMetrics?
    private var multi: UnsafeMutableRawPointer?
    private var watches: [curl_socket_t: SocketWatch] = [:]
    /// Sockets curl opened through ``openSocket(family:type:protocol:)`` and has not closed.
    private var connectionSockets: Set<curl_socket_t> = []
    private var alarm: LoopAlarm?
    private var transfers: [Int: Transfer] = [:]
    /// The last transfer number given out (by the sending task, so that its cancellation handler
    /// knows the number without a lock).
    private let transferIDs = Atomic<Int>(0)
    /// Easy handles of finished transfers, reset, for the next ones (creating a handle and
    /// setting curl's defaults again cost more per small request than the request itself).
    private var spareHandles: [UnsafeMutableRawPointer] = []
    private static let maximumSpareHandles = 32

    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// A client on `loop`, reporting to `metricsFactory` (default: `MetricsSystem.factory`,
    /// looked at once, now).
    /// - Throws: `EventLoopError` if the loop is shut down, ``HTTPClientError`` if curl fails.
    public init(loop: EventLoop, metricsFactory: (any MetricsFactory)? = nil) throws {
        self.loop = loop
        metrics = HTTPMetrics.make(metricsFactory)
        _ = Self.globalInit
        let ready = try loop.submitAndWait { [unowned(unsafe) self] () -> Bool in
            self.setUpOnLoop()
        }
        guard ready else { throw HTTPClientError(kind: .other, curlCode: -1, message: "curl_multi_init failed") }
    }

    private func setUpOnLoop() -> Bool {
        guard let multi = curl_multi_init() else { return false }
        self.multi = multi
        let me = Unmanaged.passUnretained(self).toOpaque()
        c_curl_multi_setopt_socket_function(multi) { _, socket, what, userp, _ in
            guard let userp else { return 0 }
            Unmanaged<HTTPClient>.fromOpaque(userp).takeUnretainedValue().socketChanged(socket, what: what)
            return 0
        }
        c_curl_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, me)
        c_curl_multi_setopt_timer_function(multi) { _, timeout, userp in
            guard let userp else { return 0 }
            Unmanaged<HTTPClient>.fromOpaque(userp).takeUnretainedValue().timerChanged(timeout)
            return 0
        }
        c_curl_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, me)
        alarm = try? LoopAlarm(loop: loop) { [unowned(unsafe) self] in
            self.act(on: CURL_SOCKET_TIMEOUT, flags: 0)
        }
        return alarm != nil
    }

    /// Sends `request` and returns the response (any status; HTTP errors are responses).
    /// - Throws: ``HTTPClientError`` for a connection failure, a timeout, a file problem or
    ///   cancellation (also when the task was cancelled before the call).
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let log = Amplify.Logging.logger(forCategory: "HTTP")
        // `.none` sorts above `.verbose` (it is the last level), so ask for `.verbose` itself.
        guard metrics != nil || log.logLevel == .verbose else { return try await transfer(request) }
        let started = ContinuousClock.now
        let status: String
        do {
            let response = try await transfer(request)
            status = String(response.status)
            report(request, status: status, since: started, log: log)
            return response
        } catch let error as HTTPClientError {
            status = "\(error.kind)"
            report(request, status: status, since: started, log: log)
            throw error
        }
    }

    private func report(_ request: HTTPRequest, status: String, since started: ContinuousClock.Instant, log: any Logger) {
        let elapsed = ContinuousClock.now - started
        let (seconds, attoseconds) = elapsed.components
        let nanoseconds = seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
        let service = request.service ?? "http"
        let operation = request.operation ?? request.method.uppercased()
        metrics?.attempt(service: service, operation: operation, status: status, nanoseconds: nanoseconds)
        log.log(
            level: .verbose,
            "\(request.method.uppercased()) \(Self.redactedForLogs(request.url)) → \(status) in \(String(format: "%.1f", Double(nanoseconds) / 1e6)) ms",
            metadata: [LogMetadataKey.service: service, LogMetadataKey.operation: operation])
    }

    /// The URL without its query (a presigned URL's signature, credential and token live there)
    /// or user and password.
    public static func redactedForLogs(_ url: URL) -> String {
        let host = url.host ?? ""
        let port = url.port.map { ":\($0)" } ?? ""
        return "\(url.scheme ?? "http")://\(host)\(port)\(url.path)"
    }

    private func transfer(_ request: HTTPRequest) async throws -> HTTPResponse {
        if Task.isCancelled { throw HTTPClientError(kind: .cancelled, curlCode: 0, message: "The task was cancelled.") }
        let id = transferIDs.add(1, ordering: .relaxed).newValue
        return try await withTaskCancellationHandler {
            // Unsafe (unchecked) continuation: the transfer resumes it exactly once (Transfer.finish
            // drops it as it resumes; every failure to start resumes it and starts nothing), and
            // the checked kind allocates a canary object per request.
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<HTTPResponse, any Error>) in
                // A task already on the loop thread (on the loop's executor) starts the transfer
                // here, without a turn of the loop in between.
                if loop.inEventLoop {
                    start(request, continuation, id: id)
                } else {
                    do {
                        try loop.execute { [self] in start(request, continuation, id: id) }
                    } catch {
                        continuation.resume(throwing: error)
                        return
                    }
                }
                // Cancelled before the start was queued: the handler's cancel may have run first
                // and found nothing; this one comes after the start.
                if Task.isCancelled { try? loop.execute { [self] in cancel(id) } }
            }
        } onCancel: { [self] in
            try? loop.execute { [self] in cancel(id) }
        }
    }

    /// Aborts every transfer (they fail as cancelled) and releases curl and the loop handles.
    /// Sends after this fail.
    public func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            do {
                try loop.execute { [self] in
                    for id in Array(transfers.keys) { cancel(id) }
                    for easy in spareHandles { curl_easy_cleanup(easy) }
                    spareHandles.removeAll()
                    // (Cleaning up closes the cached connections, through socketClosing.)
                    if let multi { curl_multi_cleanup(multi) }
                    multi = nil
                    for watch in watches.values { watch.poll.close() }
                    watches.removeAll()
                    alarm?.close()
                    alarm = nil
                    continuation.resume()
                }
            } catch {
                continuation.resume()
            }
        }
    }

    /// How many sockets curl opened through this client and has not closed yet (for tests: a
    /// process-wide count of descriptors is not the client's while other tests run).
    package func connectionSocketCount() async -> Int {
        await loop.value(ifShutDown: 0) { [self] in connectionSockets.count }
    }

    // MARK: Loop thread

    private func start(_ request: HTTPRequest, _ continuation: UnsafeContinuation<HTTPResponse, any Error>, id: Int) {
        guard let multi else {
            continuation.resume(throwing: HTTPClientError(kind: .other, curlCode: -1, message: "The HTTP client was shut down."))
            return
        }
        guard let easy = spareHandles.popLast() ?? curl_easy_init() else {
            continuation.resume(throwing: HTTPClientError(kind: .other, curlCode: -1, message: "curl_easy_init failed"))
            return
        }
        let transfer: Transfer
        do {
            transfer = try Transfer(easy: easy, request: request, continuation: continuation)
        } catch {
            continuation.resume(throwing: error)
            return
        }
        transfer.id = id
        transfers[id] = transfer
        watchSockets(of: transfer.easy)
        curl_multi_add_handle(multi, transfer.easy)
    }

    private func cancel(_ id: Int) {
        guard let transfer = transfers.removeValue(forKey: id) else { return }
        if let multi { curl_multi_remove_handle(multi, transfer.easy) }
        transfer.finish(.failure(HTTPClientError(kind: .cancelled, curlCode: 0, message: "The transfer was cancelled.")))
        recycle(transfer)
    }

    /// Keeps a finished transfer's easy handle (out of the multi handle), reset, for the next
    /// transfer, up to ``maximumSpareHandles``; frees it beyond that or after shutdown.
    private func recycle(_ transfer: Transfer) {
        let easy = transfer.releaseHandle()
        guard multi != nil, spareHandles.count < Self.maximumSpareHandles else {
            curl_easy_cleanup(easy)
            return
        }
        curl_easy_reset(easy)
        spareHandles.append(easy)
    }

    /// A socket curl uses and the poll watching it: what it waits for, and whether curl is done
    /// with it for now (a connection kept for reuse).
    private final class SocketWatch {
        let poll: LoopPoll
        var events: LoopPoll.Events = []
        var idle = false
        init(_ poll: LoopPoll) { self.poll = poll }

        /// Stops watching; the next use starts afresh.
        func stop() {
            poll.stop()
            events = []
            idle = false
        }
    }

    private func socketChanged(_ socket: curl_socket_t, what: Int32) {
        if what == CURL_POLL_REMOVE {
            guard let watch = watches[socket] else { return }
            if connectionSockets.contains(socket) {
                // A connection going back to curl's cache: still watched for reading, so that
                // the next request on it (curl then asks to read again) changes nothing in epoll
                // (libuv stops and starts a poll with a system call each). The first readiness
                // while idle (the server closing it) stops the watch; curl closing the socket
                // does too (socketClosing).
                watch.idle = true
            } else {
                // A socket curl made without openSocket (its resolver's): closed without telling.
                watch.stop()
            }
            return
        }
        let watch: SocketWatch
        if let existing = watches[socket] {
            watch = existing
        } else {
            guard let made = try? LoopPoll(loop: loop, socket: socket, { [unowned(unsafe) self] status, events in
                self.ready(socket, status: status, events: events)
            }) else { return }
            watch = SocketWatch(made)
            watches[socket] = watch
        }
        watch.idle = false
        var events: LoopPoll.Events = []
        if what == CURL_POLL_IN || what == CURL_POLL_INOUT { events.insert(.readable) }
        if what == CURL_POLL_OUT || what == CURL_POLL_INOUT { events.insert(.writable) }
        guard events != watch.events else { return }
        watch.events = events
        watch.poll.start(events)
    }

    private func ready(_ socket: curl_socket_t, status: Int32, events: LoopPoll.Events) {
        if let watch = watches[socket], watch.idle {
            watch.stop()
            return
        }
        var flags: Int32 = 0
        if status < 0 { flags |= CURL_CSELECT_ERR }
        if events.contains(.readable) { flags |= CURL_CSELECT_IN }
        if events.contains(.writable) { flags |= CURL_CSELECT_OUT }
        act(on: socket, flags: flags)
    }

    /// A socket for curl (its open-socket function), close-on-exec, known as a connection's.
    fileprivate func openSocket(family: Int32, type: Int32, protocol: Int32) -> curl_socket_t {
        let socket = Glibc.socket(family, type | Int32(SOCK_CLOEXEC.rawValue), `protocol`)
        guard socket >= 0 else { return CURL_SOCKET_BAD }
        // A watch left on this number belonged to a socket closed before; it starts afresh.
        watches[socket]?.stop()
        connectionSockets.insert(socket)
        return socket
    }

    /// curl is closing `socket` (its close-socket function): the watch stops first, so that epoll
    /// never watches a number the process may reuse for another file.
    fileprivate func socketClosing(_ socket: curl_socket_t) -> Int32 {
        connectionSockets.remove(socket)
        watches[socket]?.stop()
        return close(socket)
    }

    /// Gives `easy` the open- and close-socket functions that keep ``connectionSockets`` and
    /// stop a socket's watch before it is closed (curl_easy_reset clears them: set per transfer).
    private func watchSockets(of easy: UnsafeMutableRawPointer) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        c_curl_easy_setopt_opensocket_function(easy) { clientp, _, address in
            guard let clientp, let address else { return CURL_SOCKET_BAD }
            return Unmanaged<HTTPClient>.fromOpaque(clientp).takeUnretainedValue().openSocket(
                family: address.pointee.family, type: address.pointee.socktype, protocol: address.pointee.protocol)
        }
        c_curl_easy_setopt_pointer(easy, CURLOPT_OPENSOCKETDATA, me)
        c_curl_easy_setopt_closesocket_function(easy) { clientp, socket in
            guard let clientp else { return close(socket) }
            return Unmanaged<HTTPClient>.fromOpaque(clientp).takeUnretainedValue().socketClosing(socket)
        }
        c_curl_easy_setopt_pointer(easy, CURLOPT_CLOSESOCKETDATA, me)
    }

    private func timerChanged(_ milliseconds: Int) {
        guard milliseconds >= 0 else {
            alarm?.clear()
            return
        }
        alarm?.set(afterMilliseconds: UInt64(milliseconds))
    }

    private func act(on socket: curl_socket_t, flags: Int32) {
        guard let multi else { return }
        var running: Int32 = 0
        curl_multi_socket_action(multi, socket, flags, &running)
        collectFinished(multi)
    }

    private func collectFinished(_ multi: UnsafeMutableRawPointer) {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = c_curl_message_result(message)
            var privateData: UnsafeMutableRawPointer?
            c_curl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &privateData)
            curl_multi_remove_handle(multi, easy)
            guard let privateData else { continue }
            let transfer = Unmanaged<Transfer>.fromOpaque(privateData).takeUnretainedValue()
            transfers.removeValue(forKey: transfer.id)
            transfer.complete(code)
            recycle(transfer)
        }
    }
}
