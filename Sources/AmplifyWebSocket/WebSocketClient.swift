import AmplifyEventLoop
import Foundation

/// A WebSocket client (RFC 6455) on the Amplify event loop: `ws` and `wss` over libcurl's
/// connect-only stream (DNS, TCP, TLS and the certificate check by curl), the upgrade and the
/// framing done here. It masks what it sends, joins fragmented messages, checks UTF-8, answers
/// pings, refuses frames and messages over the limit, and closes with the close handshake.
///
/// Loop thread only: create it, call its methods and receive its events on the loop thread
/// (events are delivered in order; `closed` comes exactly once and is the last).
public final class WebSocketClient: @unchecked Sendable {
    // @unchecked Sendable: every field is touched only on the loop thread (see above); timer
    // callbacks, which must be @Sendable, run there too.

    /// Settings.
    public struct Options: Sendable {
        /// The subprotocols offered (`Sec-WebSocket-Protocol`).
        public var subprotocols: [String]
        /// Extra headers of the upgrade request.
        public var headers: [(name: String, value: String)]
        /// A PEM file of certificate authorities to trust instead of the system's (`wss`).
        public var trustedCertificatesFile: String?
        /// How long connecting, TLS and the upgrade may take together.
        public var openTimeout: Duration
        /// How long to wait for the server's close frame after sending one.
        public var closeTimeout: Duration
        /// The largest frame accepted.
        public var maximumFrameSize: Int
        /// The largest message accepted (fragments joined).
        public var maximumMessageSize: Int
        /// Messages longer than this are sent in fragments of this size (`nil`: never fragmented).
        public var outgoingFragmentSize: Int?

        /// Options.
        /// - Parameters:
        ///   - subprotocols: the subprotocols offered.
        ///   - headers: extra headers of the upgrade request.
        ///   - trustedCertificatesFile: a PEM file of authorities to trust instead of the system's.
        ///   - openTimeout: how long connecting, TLS and the upgrade may take together.
        ///   - closeTimeout: how long to wait for the server's close frame after sending one.
        ///   - maximumFrameSize: the largest frame accepted.
        ///   - maximumMessageSize: the largest message accepted.
        ///   - outgoingFragmentSize: messages longer than this are sent in fragments.
        public init(
            subprotocols: [String] = [], headers: [(name: String, value: String)] = [], trustedCertificatesFile: String? = nil,
            openTimeout: Duration = .seconds(15), closeTimeout: Duration = .seconds(2), maximumFrameSize: Int = 1 << 20,
            maximumMessageSize: Int = 1 << 20, outgoingFragmentSize: Int? = nil
        ) {
            self.subprotocols = subprotocols
            self.headers = headers
            self.trustedCertificatesFile = trustedCertificatesFile
            self.openTimeout = openTimeout
            self.closeTimeout = closeTimeout
            self.maximumFrameSize = maximumFrameSize
            self.maximumMessageSize = maximumMessageSize
            self.outgoingFragmentSize = outgoingFragmentSize
        }
    }

    /// How the connection ended.
    public enum Closure: Sendable, Equatable {
        /// With the close handshake: the code and reason the server sent (or answered with).
        case clean(code: UInt16?, reason: String)
        /// Without it: what went wrong.
        case failed(WebSocketError)
    }

    /// What the client reports.
    public enum Event: Sendable, Equatable {
        /// The upgrade succeeded; the subprotocol the server chose.
        case open(subprotocol: String?)
        /// A text message.
        case text(String)
        /// A binary message.
        case binary([UInt8])
        /// A pong (an answer to ``ping(_:)``, or unsolicited).
        case pong([UInt8])
        /// The connection ended; nothing follows.
        case closed(Closure)
    }

    private enum State {
        case idle, connecting, handshaking, open, closing, closed
    }

    private let loop: EventLoop
    private let url: URL
    private let options: Options
    private let onEvent: (Event) -> Void
    private var state = State.idle
    private var stream: CurlStream?
    private var handshake: WebSocketHandshake?
    private var handshakeBytes: [UInt8] = []
    private var decoder: WebSocketFrameDecoder
    private var assembler: WebSocketMessageAssembler
    private var timer: LoopTimer?
    private var random = SystemRandomNumberGenerator()

    /// A client for `url` (`ws://` or `wss://`). Loop thread only.
    /// - Parameters:
    ///   - loop: the loop it runs on.
    ///   - url: the WebSocket URL.
    ///   - options: subprotocols, headers, limits and time limits.
    ///   - onEvent: called on the loop thread with each event, in order.
    public init(loop: EventLoop, url: URL, options: Options = Options(), onEvent: @escaping (Event) -> Void) {
        self.loop = loop
        self.url = url
        self.options = options
        self.onEvent = onEvent
        decoder = WebSocketFrameDecoder(maximumFrameSize: options.maximumFrameSize)
        assembler = WebSocketMessageAssembler(maximumMessageSize: options.maximumMessageSize)
    }

    /// Whether the upgrade succeeded and no close has begun.
    public var isOpen: Bool { state == .open }

    /// Connects and sends the upgrade; `open` or `closed` follows. Loop thread only; once.
    public func connect() {
        guard state == .idle else { return }
        let scheme = url.scheme?.lowercased()
        guard scheme == "ws" || scheme == "wss", let host = url.host, !host.isEmpty else {
            state = .connecting
            fail(WebSocketError(.connectionFailed, "\(url.absoluteString) is not a ws:// or wss:// URL."))
            return
        }
        state = .connecting
        handshake = WebSocketHandshake(url: url, subprotocols: options.subprotocols, headers: options.headers)
        let stream = CurlStream(loop: loop) { [self] event in streamEvent(event) }
        self.stream = stream
        arm(options.openTimeout) { [self] in
            fail(WebSocketError(.timeout, "The WebSocket to \(url.absoluteString) did not open within \(options.openTimeout)."))
        }
        stream.connect(
            host: host, port: url.port ?? (scheme == "wss" ? 443 : 80), secure: scheme == "wss",
            trustedCertificatesFile: options.trustedCertificatesFile, timeout: options.openTimeout)
    }

    /// Sends a text message (masked; fragmented if longer than `outgoingFragmentSize`). Ignored unless open.
    public func send(text: String) { sendMessage(.text, Array(text.utf8)) }

    /// Sends a binary message. Ignored unless open.
    public func send(binary: [UInt8]) { sendMessage(.binary, binary) }

    /// Sends a ping (at most 125 bytes of payload). Ignored unless open.
    public func ping(_ payload: [UInt8] = []) {
        guard state == .open else { return }
        write(WebSocketFrame(opcode: .ping, payload: Array(payload.prefix(125))))
    }

    /// Starts the close handshake: sends a close frame and waits (up to `closeTimeout`) for the
    /// server's; `closed(.clean)` follows (or `.failed` with a timeout). Before the upgrade it
    /// just stops. Loop thread only.
    public func close(code: UInt16 = 1000, reason: String = "") {
        switch state {
        case .idle, .connecting, .handshaking:
            state = .closed
            release()
            onEvent(.closed(.clean(code: code, reason: reason)))
        case .open:
            state = .closing
            write(WebSocketFrame(opcode: .close, payload: WebSocketFrame.closePayload(code: code, reason: reason)))
            arm(options.closeTimeout) { [self] in
                fail(WebSocketError(.timeout, "The server did not answer the close frame within \(options.closeTimeout)."))
            }
        case .closing, .closed:
            break
        }
    }

    /// Drops the connection without the close handshake; `closed(.failed)` with `error` follows
    /// unless it had already ended. Loop thread only.
    public func abort(_ error: WebSocketError = WebSocketError(.connectionFailed, "The connection was aborted.")) {
        fail(error)
    }

    // MARK: Loop thread

    private func sendMessage(_ opcode: WebSocketOpcode, _ payload: [UInt8]) {
        guard state == .open else { return }
        for frame in WebSocketFrame.message(opcode, payload, fragmentSize: options.outgoingFragmentSize) { write(frame) }
    }

    private func write(_ frame: WebSocketFrame) {
        var key = [UInt8](repeating: 0, count: 4)
        for index in 0..<4 { key[index] = UInt8.random(in: 0...255, using: &random) }
        stream?.send(frame.encoded(maskingKey: key))
    }

    private func streamEvent(_ event: CurlStream.Event) {
        switch event {
        case .connected:
            guard state == .connecting, let handshake else { return }
            state = .handshaking
            stream?.send(handshake.request)
        case .data(let bytes):
            received(bytes)
        case .closed(let error):
            stream = nil
            streamEnded(error)
        }
    }

    private func received(_ bytes: [UInt8]) {
        switch state {
        case .handshaking:
            handshakeBytes += bytes
            guard let handshake else { return }
            do {
                guard let response = try handshake.parseResponse(handshakeBytes) else { return }
                handshakeBytes = []
                state = .open
                timer?.cancel()
                timer = nil
                onEvent(.open(subprotocol: response.subprotocol))
                if !response.remainder.isEmpty { frames(response.remainder) }
            } catch {
                fail(error)
            }
        case .open, .closing:
            frames(bytes)
        default:
            break
        }
    }

    private func frames(_ bytes: [UInt8]) {
        decoder.append(bytes)
        do {
            while state == .open || state == .closing, let frame = try decoder.nextFrame() {
                guard let message = try assembler.receive(frame) else { continue }
                handle(message)
            }
        } catch {
            // Tell the server why (best effort), then end.
            if state == .open { write(WebSocketFrame(opcode: .close, payload: WebSocketFrame.closePayload(code: error.closeCode, reason: ""))) }
            fail(error)
        }
    }

    private func handle(_ message: WebSocketMessage) {
        switch message {
        case .text(let text):
            if state == .open { onEvent(.text(text)) }
        case .binary(let bytes):
            if state == .open { onEvent(.binary(bytes)) }
        case .ping(let payload):
            if state == .open { write(WebSocketFrame(opcode: .pong, payload: payload)) }
        case .pong(let payload):
            onEvent(.pong(payload))
        case .close(let code, let reason):
            if state == .open {
                // Echo the close, then end: the server closes the TCP connection after it.
                write(WebSocketFrame(opcode: .close, payload: WebSocketFrame.closePayload(code: code ?? 1000, reason: "")))
            }
            state = .closed
            release()
            onEvent(.closed(.clean(code: code, reason: reason)))
        }
    }

    private func streamEnded(_ error: WebSocketError?) {
        guard state != .closed else { return }
        if decoder.hasPartialFrame || assembler.isInsideMessage {
            let cause = error.map { " (\($0.message))" } ?? ""
            fail(
                WebSocketError(
                    .closedMidFrame, "The connection closed in the middle of a \(decoder.hasPartialFrame ? "frame" : "fragmented message").\(cause)"))
        } else if let error {
            fail(error)
        } else if state == .handshaking || state == .connecting {
            fail(WebSocketError(.handshakeFailed, "The connection closed before the server answered the upgrade."))
        } else {
            fail(WebSocketError(.closedWithoutCloseFrame, "The connection closed without a close frame."))
        }
    }

    private func fail(_ error: WebSocketError) {
        guard state != .closed else { return }
        state = .closed
        release()
        onEvent(.closed(.failed(error)))
    }

    private func arm(_ delay: Duration, _ action: @escaping () -> Void) {
        timer?.cancel()
        let callback = LoopCallback(action)
        timer = try? loop.scheduleTimer(after: delay) { callback.run() }
    }

    private func release() {
        timer?.cancel()
        timer = nil
        stream?.close()
        stream = nil
    }
}

/// A closure that only runs on the loop thread, carried through a `@Sendable` timer callback.
final class LoopCallback: @unchecked Sendable {
    // @unchecked Sendable: created and run on the loop thread only.
    private let action: () -> Void
    init(_ action: @escaping () -> Void) { self.action = action }
    func run() { action() }
}
