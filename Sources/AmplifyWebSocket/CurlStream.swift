import AmplifyEventLoop
import CCurlShims
import Foundation

/// A TCP or TLS byte stream on the Amplify event loop, opened by libcurl's connect-only mode:
/// curl resolves the name, connects, does the TLS handshake and checks the certificate (driven
/// by a multi handle of its own through `LoopPoll`s and a `LoopTimer`, so nothing blocks the
/// loop); then bytes move with `curl_easy_send` / `curl_easy_recv` on the socket curl reports
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
    private var multi: UnsafeMutableRawPointer?
    private var connectPolls: [curl_socket_t: LoopPoll] = [:]
    private var connectTimer: LoopTimer?
    private var poll: LoopPoll?
    private var pending: [[UInt8]] = []
    private var pendingOffset = 0
    private var waitingForWritable = false
    private var isFinished = false
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private var readBuffer = [UInt8](repeating: 0, count: 64 << 10)

    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

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
        _ = Self.globalInit
        guard let easy = curl_easy_init(), let multi = curl_multi_init() else {
            finish(WebSocketError(.connectionFailed, "curl could not be initialised."))
            return
        }
        self.easy = easy
        self.multi = multi
        let bracketed = host.contains(":") ? "[\(host)]" : host
        c_curl_easy_setopt_string(easy, CURLOPT_URL, "\(secure ? "https" : "http")://\(bracketed):\(port)/")
        c_curl_easy_setopt_long(easy, CURLOPT_CONNECT_ONLY, 1)
        c_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        // ALPN must not offer h2: the upgrade that follows is HTTP/1.1.
        c_curl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))
        c_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(timeout.saturatingMilliseconds))
        c_curl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        if let trustedCertificatesFile { c_curl_easy_setopt_string(easy, CURLOPT_CAINFO, trustedCertificatesFile) }
        let me = Unmanaged.passUnretained(self).toOpaque()
        c_curl_multi_setopt_socket_function(multi) { _, socket, what, userp, _ in
            guard let userp else { return 0 }
            Unmanaged<CurlStream>.fromOpaque(userp).takeUnretainedValue().connectSocketChanged(socket, what: what)
            return 0
        }
        c_curl_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, me)
        c_curl_multi_setopt_timer_function(multi) { _, timeout, userp in
            guard let userp else { return 0 }
            Unmanaged<CurlStream>.fromOpaque(userp).takeUnretainedValue().connectTimerChanged(timeout)
            return 0
        }
        c_curl_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, me)
        curl_multi_add_handle(multi, easy)
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

    // MARK: Connecting (curl's multi interface)

    private func connectSocketChanged(_ socket: curl_socket_t, what: Int32) {
        if what == CURL_POLL_REMOVE {
            connectPolls.removeValue(forKey: socket)?.close()
            return
        }
        let poll: LoopPoll
        if let existing = connectPolls[socket] {
            poll = existing
        } else {
            guard let made = try? LoopPoll(loop: loop, socket: socket, { [self] status, events in
                var flags: Int32 = 0
                if status < 0 { flags |= CURL_CSELECT_ERR }
                if events.contains(.readable) { flags |= CURL_CSELECT_IN }
                if events.contains(.writable) { flags |= CURL_CSELECT_OUT }
                act(on: socket, flags: flags)
            }) else {
                finish(WebSocketError(.connectionFailed, "The loop refused to watch curl's socket."))
                return
            }
            connectPolls[socket] = made
            poll = made
        }
        var events: LoopPoll.Events = []
        if what == CURL_POLL_IN || what == CURL_POLL_INOUT { events.insert(.readable) }
        if what == CURL_POLL_OUT || what == CURL_POLL_INOUT { events.insert(.writable) }
        poll.start(events)
    }

    private func connectTimerChanged(_ milliseconds: Int) {
        connectTimer?.cancel()
        connectTimer = nil
        guard milliseconds >= 0 else { return }
        do {
            connectTimer = try loop.scheduleTimer(after: .milliseconds(milliseconds)) { [self] in
                act(on: CURL_SOCKET_TIMEOUT, flags: 0)
            }
        } catch {
            finish(WebSocketError(.connectionFailed, "The loop is shutting down."))
        }
    }

    private func act(on socket: curl_socket_t, flags: Int32) {
        guard let multi, !isFinished, poll == nil else { return }
        var running: Int32 = 0
        curl_multi_socket_action(multi, socket, flags, &running)
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE else { continue }
            connected(c_curl_message_result(message))
            return
        }
    }

    private func connected(_ code: CURLcode) {
        connectTimer?.cancel()
        connectTimer = nil
        for poll in connectPolls.values { poll.close() }
        connectPolls.removeAll()
        guard code == CURLE_OK else {
            let detail = String(cString: errorBuffer)
            let text = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            finish(WebSocketError(code == CURLE_OPERATION_TIMEDOUT ? .timeout : .connectionFailed, "Could not connect: \(text) (curl \(code.rawValue))."))
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
        connectTimer?.cancel()
        connectTimer = nil
        for poll in connectPolls.values { poll.close() }
        connectPolls.removeAll()
        // The poll stops watching before curl closes the socket.
        poll?.close()
        poll = nil
        pending.removeAll()
        if let multi, let easy { curl_multi_remove_handle(multi, easy) }
        if let easy { curl_easy_cleanup(easy) }
        if let multi { curl_multi_cleanup(multi) }
        easy = nil
        multi = nil
    }
}
