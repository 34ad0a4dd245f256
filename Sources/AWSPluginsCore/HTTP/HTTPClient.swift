import Amplify
import AmplifyCurl
import AmplifyEventLoop
import CCurlShims
import CoreMetrics
import Foundation
import Synchronization
import Tracing

/// An HTTP client on the Amplify event loop: libcurl's multi-socket API driven by libuv through
/// AmplifyCurl's `CurlMultiDriver` (a `LoopPoll` per socket curl opens, one `LoopAlarm` for
/// curl's timeouts), no threads of its own.
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
    /// The multi handle and its polls and alarm (`nil` after shutdown).
    private var driver: CurlMultiDriver?
    private var transfers: [Int: Transfer] = [:]
    /// The last transfer number given out (by the sending task, so that its cancellation handler
    /// knows the number without a lock).
    private let transferIDs = Atomic<Int>(0)
    /// Easy handles of finished transfers, reset, for the next ones (creating a handle and
    /// setting curl's defaults again cost more per small request than the request itself).
    private var spareHandles: [UnsafeMutableRawPointer] = []
    private static let maximumSpareHandles = 32

    /// A client on `loop`, reporting to `metricsFactory` (default: `MetricsSystem.factory`,
    /// looked at once, now).
    /// - Throws: `EventLoopError` if the loop is shut down, ``HTTPClientError`` if curl fails.
    public init(loop: EventLoop, metricsFactory: (any MetricsFactory)? = nil) throws {
        self.loop = loop
        metrics = HTTPMetrics.make(metricsFactory)
        let ready = try loop.submitAndWait { [unowned(unsafe) self] () -> Bool in
            self.setUpOnLoop()
        }
        guard ready else { throw HTTPClientError(kind: .other, curlCode: -1, message: "curl_multi_init failed") }
    }

    private func setUpOnLoop() -> Bool {
        driver = CurlMultiDriver(loop: loop) { [unowned(unsafe) self] easy, result in
            self.finished(easy, result)
        }
        return driver != nil
    }

    /// Sends `request` and returns the response (any status; HTTP errors are responses).
    /// - Throws: ``HTTPClientError`` for a connection failure, a timeout, a file problem or
    ///   cancellation (also when the task was cancelled before the call).
    /// With a tracer bootstrapped, each request is a client span (`service.Operation` for AWS
    /// calls, `HTTP METHOD` otherwise) under the task's context, carrying the method, host, AWS
    /// service and operation and the status — never the URL's query or a header.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard AmplifyTracing.tracer != nil else { return try await measuredSend(request) }
        let name = request.service.map { "\($0).\(request.operation ?? request.method.uppercased())" } ?? "HTTP \(request.method.uppercased())"
        return try await AmplifyTracing.withSpan(name, ofKind: .client) { span in
            span?.attributes["http.request.method"] = request.method.uppercased()
            span?.attributes["server.address"] = request.url.host ?? ""
            if let service = request.service {
                span?.attributes["rpc.system"] = "aws-api"
                span?.attributes["rpc.service"] = service
                span?.attributes["rpc.method"] = request.operation ?? ""
            }
            let response = try await measuredSend(request)
            span?.attributes["http.response.status_code"] = response.status
            if response.status >= 500 { span?.setStatus(SpanStatus(code: .error)) }
            return response
        }
    }

    private func measuredSend(_ request: HTTPRequest) async throws -> HTTPResponse {
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
                    // (Closing cleans up curl, which closes the cached connections.)
                    driver?.close()
                    driver = nil
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
        await loop.value(ifShutDown: 0) { [self] in driver?.connectionSocketCount ?? 0 }
    }

    // MARK: Loop thread

    private func start(_ request: HTTPRequest, _ continuation: UnsafeContinuation<HTTPResponse, any Error>, id: Int) {
        guard let driver else {
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
        driver.watchSockets(of: transfer.easy)
        driver.add(transfer.easy)
    }

    private func cancel(_ id: Int) {
        guard let transfer = transfers.removeValue(forKey: id) else { return }
        driver?.remove(transfer.easy)
        transfer.finish(.failure(HTTPClientError(kind: .cancelled, curlCode: 0, message: "The transfer was cancelled.")))
        recycle(transfer)
    }

    /// Keeps a finished transfer's easy handle (out of the multi handle), reset, for the next
    /// transfer, up to ``maximumSpareHandles``; frees it beyond that or after shutdown.
    private func recycle(_ transfer: Transfer) {
        let easy = transfer.releaseHandle()
        guard driver != nil, spareHandles.count < Self.maximumSpareHandles else {
            curl_easy_cleanup(easy)
            return
        }
        curl_easy_reset(easy)
        spareHandles.append(easy)
    }

    /// curl finished `easy` (with `code`): out of the multi handle, then its transfer completes.
    private func finished(_ easy: UnsafeMutableRawPointer, _ code: CURLcode) {
        var privateData: UnsafeMutableRawPointer?
        c_curl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &privateData)
        driver?.remove(easy)
        guard let privateData else { return }
        let transfer = Unmanaged<Transfer>.fromOpaque(privateData).takeUnretainedValue()
        transfers.removeValue(forKey: transfer.id)
        transfer.complete(code)
        recycle(transfer)
    }
}
