import Amplify
import AmplifyConcurrency
import AmplifyEventLoop
import CCurlShims
import CoreMetrics
import Foundation

/// An HTTP client on the Amplify event loop: libcurl's multi-socket API driven by libuv (a
/// `LoopPoll` per socket curl opens, one `LoopTimer` for curl's timeouts), no threads of its own.
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
    // and cancellation hop there with loop.execute); `metrics` is immutable and locks its own.
    /// The loop transfers run on.
    public let loop: EventLoop
    /// `nil` when no metrics backend is bootstrapped.
    let metrics: HTTPMetrics?
    private var multi: UnsafeMutableRawPointer?
    private var polls: [curl_socket_t: LoopPoll] = [:]
    private var timer: LoopTimer?
    private var transfers: [Int: Transfer] = [:]
    private var nextID = 0
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
        return true
    }

    /// Sends `request` and returns the response (any status; HTTP errors are responses).
    /// - Throws: ``HTTPClientError`` for a connection failure, a timeout, a file problem or
    ///   cancellation (also when the task was cancelled before the call).
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let log = Amplify.Logging.logger(forCategory: "HTTP")
        guard metrics != nil || log.logLevel >= .verbose else { return try await transfer(request) }
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
        let id = Locked<Int?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                // A task already on the loop thread (on the loop's executor) starts the transfer
                // here, without a turn of the loop in between.
                if loop.inEventLoop {
                    id.withLock { $0 = start(request, continuation) }
                    return
                }
                do {
                    try loop.execute { [self] in
                        id.withLock { $0 = start(request, continuation) }
                    }
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        } onCancel: { [self] in
            try? loop.execute { [self] in
                if let transferID = id.withLock({ $0 }) { cancel(transferID) }
            }
        }
    }

    /// Aborts every transfer (they fail as cancelled) and releases curl and the loop handles.
    /// Sends after this fail.
    public func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            do {
                try loop.execute { [self] in
                    for id in Array(transfers.keys) { cancel(id) }
                    for poll in polls.values { poll.close() }
                    polls.removeAll()
                    timer?.cancel()
                    timer = nil
                    for easy in spareHandles { curl_easy_cleanup(easy) }
                    spareHandles.removeAll()
                    if let multi { curl_multi_cleanup(multi) }
                    multi = nil
                    continuation.resume()
                }
            } catch {
                continuation.resume()
            }
        }
    }

    // MARK: Loop thread

    private func start(_ request: HTTPRequest, _ continuation: CheckedContinuation<HTTPResponse, any Error>) -> Int? {
        guard let multi else {
            continuation.resume(throwing: HTTPClientError(kind: .other, curlCode: -1, message: "The HTTP client was shut down."))
            return nil
        }
        guard let easy = spareHandles.popLast() ?? curl_easy_init() else {
            continuation.resume(throwing: HTTPClientError(kind: .other, curlCode: -1, message: "curl_easy_init failed"))
            return nil
        }
        let transfer: Transfer
        do {
            transfer = try Transfer(easy: easy, request: request, continuation: continuation)
        } catch {
            continuation.resume(throwing: error)
            return nil
        }
        nextID += 1
        transfer.id = nextID
        transfers[nextID] = transfer
        curl_multi_add_handle(multi, transfer.easy)
        return nextID
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

    private func socketChanged(_ socket: curl_socket_t, what: Int32) {
        if what == CURL_POLL_REMOVE {
            // Stopped, kept for the next socket curl opens with the same number; closed at shutdown.
            polls[socket]?.stop()
            return
        }
        let poll: LoopPoll
        if let existing = polls[socket] {
            poll = existing
        } else {
            guard let made = try? LoopPoll(loop: loop, socket: socket, { [unowned(unsafe) self] status, events in
                var flags: Int32 = 0
                if status < 0 { flags |= CURL_CSELECT_ERR }
                if events.contains(.readable) { flags |= CURL_CSELECT_IN }
                if events.contains(.writable) { flags |= CURL_CSELECT_OUT }
                self.act(on: socket, flags: flags)
            }) else { return }
            polls[socket] = made
            poll = made
        }
        var events: LoopPoll.Events = []
        if what == CURL_POLL_IN || what == CURL_POLL_INOUT { events.insert(.readable) }
        if what == CURL_POLL_OUT || what == CURL_POLL_INOUT { events.insert(.writable) }
        poll.start(events)
    }

    private func timerChanged(_ milliseconds: Int) {
        timer?.cancel()
        timer = nil
        guard milliseconds >= 0 else { return }
        timer = try? loop.scheduleTimer(after: .milliseconds(milliseconds)) { [unowned(unsafe) self] in
            self.act(on: CURL_SOCKET_TIMEOUT, flags: 0)
        }
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
