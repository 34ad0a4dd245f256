import AmplifyCurl
import AmplifyEventLoop
import CCurlShims
import Foundation

/// A TCP or TLS byte stream on the Amplify event loop, opened by libcurl's connect-only mode:
/// curl resolves the name, connects, does the TLS handshake and checks the certificate (driven
/// by a multi handle of its own through AmplifyCurl's `CurlMultiDriver`, the HTTP client's
/// driver, so nothing blocks the loop); then bytes move with `curl_easy_send` / `curl_easy_recv` on the socket curl reports
/// (`CURLINFO_ACTIVESOCKET`), watched by one `LoopPoll`.
///
/// Loop thread only: create it, call its methods and receive its events there.
final class CurlStream: @unchecked Sendable {
    // @unchecked Sendable: every field is touched only on the loop thread; the timer callback
    // (which must be @Sendable) runs there too.

    enum Event {
        /// Connected (and, for https, the TLS handshake done and the certificate checked).
        case connected
        /// Bytes arrived.
        case data([UInt8])
        /// The stream ended: `nil` when the peer closed it, else what failed. No event follows.
        case closed(WebSocketError?)
    }

    private let loop: EventLoop
    private let handler: (Event) -> Void
    private var easy: UnsafeMutableRawPointer?
    private var driver: CurlMultiDriver?
    private var poll: LoopPoll?
    private var pending: [[UInt8]] = []
    private var pendingOffset = 0
    private var waitingForWritable = false
    private var isFinished = false
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private var readBuffer = [UInt8](repeating: 0, count: 64 << 10)

    /// A stream to `host:port` (TLS when `secure`), reporting to `handler` on the loop thread.
    init(loop: EventLoop, handler: @escaping (Event) -> Void) {
        self.loop = loop
        self.handler = handler
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        errorBuffer.deallocate()
    }

    /// Starts connecting. Loop thread only.
    /// - Parameters:
    ///   - host: the host name or address.
    ///   - port: the port.
    ///   - secure: whether to speak TLS (certificate and host name checked).
    ///   - trustedCertificatesFile: a PEM file of authorities to trust instead of the system's.
    ///   - timeout: how long connecting (and the TLS handshake) may take.
    func connect(host: String, port: Int, secure: Bool, trustedCertificatesFile: String?, timeout: Duration) {
        // (Unowned: the stream closes the driver before it goes.)
        let driver = CurlMultiDriver(
            loop: loop,
            watchFailed: { [unowned(unsafe) self] in self.finish(WebSocketError(.connectionFailed, "The loop refused to watch curl's socket.")) },
            finished: { [unowned(unsafe) self] _, code in
                // Only the connect is driven: what follows is the stream's own poll's.
                guard !self.isFinished, self.poll == nil else { return }
                self.connected(code)
            })
        guard let driver, let easy = curl_easy_init() else {
            driver?.close()
            finish(WebSocketError(.connectionFailed, "curl could not be initialised."))
            return
        }
        self.easy = easy
        self.driver = driver
        let bracketed = host.contains(":") ? "[\(host)]" : host
        c_curl_easy_setopt_string(easy, CURLOPT_URL, "\(secure ? "https" : "http")://\(bracketed):\(port)/")
        c_curl_easy_setopt_long(easy, CURLOPT_CONNECT_ONLY, 1)
        c_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        // ALPN must not offer h2: the upgrade that follows is HTTP/1.1.
        c_curl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))
        c_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(timeout.saturatingMilliseconds))
        c_curl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        if let trustedCertificatesFile { c_curl_easy_setopt_string(easy, CURLOPT_CAINFO, trustedCertificatesFile) }
        driver.add(easy)
    }

    /// Queues `bytes` and writes what the socket takes now. Loop thread only.
    func send(_ bytes: [UInt8]) {
        guard !isFinished, !bytes.isEmpty else { return }
        pending.append(bytes)
        if poll != nil, !waitingForWritable { flush() }
    }

    /// Whether bytes wait to be written.
    var hasPendingWrites: Bool { !pending.isEmpty }

    /// Closes the stream now (queued bytes are dropped; no event follows). Loop thread only.
    func close() {
        guard !isFinished else { return }
        isFinished = true
        release()
    }

    // MARK: Connecting (curl's multi interface, through the driver)

    private func connected(_ code: CURLcode) {
        // The connected socket is watched by the stream's own poll from here (one poll per
        // descriptor); the transfer stays in the multi handle, where curl finds its connection.
        driver?.closeWatches()
        guard code == CURLE_OK else {
            let detail = String(cString: errorBuffer)
            let text = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            finish(
                WebSocketError(code == CURLE_OPERATION_TIMEDOUT ? .timeout : .connectionFailed, "Could not connect: \(text) (curl \(code.rawValue)).")
            )
            return
        }
        var socket: curl_socket_t = CURL_SOCKET_BAD
        guard let easy, c_curl_easy_getinfo_socket(easy, CURLINFO_ACTIVESOCKET, &socket) == CURLE_OK, socket != CURL_SOCKET_BAD else {
            finish(WebSocketError(.connectionFailed, "curl connected but reports no socket."))
            return
        }
        do {
            let poll = try LoopPoll(loop: loop, socket: socket) { [self] status, events in
                socketReady(status: status, events: events)
            }
            self.poll = poll
            poll.start(.readable)
        } catch {
            finish(WebSocketError(.connectionFailed, "The loop refused to watch the socket: \(error)."))
            return
        }
        handler(.connected)
        if !isFinished, !pending.isEmpty { flush() }
    }

    // MARK: Connected

    private func socketReady(status: Int32, events: LoopPoll.Events) {
        guard !isFinished else { return }
        if status < 0 {
            // An error (a reset): what already arrived is still read first, and curl's read
            // error says what happened.
            readAvailable()
            finish(WebSocketError(.connectionFailed, "The connection failed (libuv status \(status))."))
            return
        }
        if events.contains(.writable) { flush() }
        if events.contains(.readable), !isFinished { readAvailable() }
    }

    private func readAvailable() {
        guard let easy else { return }
        // Read until curl says "again": TLS may hold decrypted bytes the socket no longer signals.
        while !isFinished {
            var received = 0
            let code = readBuffer.withUnsafeMutableBytes { curl_easy_recv(easy, $0.baseAddress, $0.count, &received) }
            if code == CURLE_AGAIN { return }
            guard code == CURLE_OK else {
                finish(WebSocketError(.connectionFailed, "Reading failed: \(String(cString: curl_easy_strerror(code))) (curl \(code.rawValue))."))
                return
            }
            guard received > 0 else {
                finish(nil)
                return
            }
            handler(.data(Array(readBuffer[0..<received])))
        }
    }

    private func flush() {
        guard let easy else { return }
        while let chunk = pending.first, !isFinished {
            var sent = 0
            // A TLS write that must be retried is retried with the same bytes at the same address:
            // the chunk is not mutated while it is first in the queue.
            let code = chunk.withUnsafeBytes { raw in
                curl_easy_send(easy, raw.baseAddress?.advanced(by: pendingOffset), raw.count - pendingOffset, &sent)
            }
            if code == CURLE_AGAIN {
                if !waitingForWritable {
                    waitingForWritable = true
                    poll?.start([.readable, .writable])
                }
                return
            }
            guard code == CURLE_OK else {
                finish(WebSocketError(.connectionFailed, "Writing failed: \(String(cString: curl_easy_strerror(code))) (curl \(code.rawValue))."))
                return
            }
            pendingOffset += sent
            if pendingOffset >= chunk.count {
                pending.removeFirst()
                pendingOffset = 0
            }
        }
        if waitingForWritable, !isFinished {
            waitingForWritable = false
            poll?.start(.readable)
        }
    }

    // MARK: Ending

    private func finish(_ error: WebSocketError?) {
        guard !isFinished else { return }
        isFinished = true
        release()
        handler(.closed(error))
    }

    private func release() {
        driver?.closeWatches()
        // The poll stops watching before curl closes the socket.
        poll?.close()
        poll = nil
        pending.removeAll()
        if let easy { driver?.remove(easy) }
        if let easy { curl_easy_cleanup(easy) }
        driver?.close()
        easy = nil
        driver = nil
    }
}
