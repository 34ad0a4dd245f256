/// What a WebSocket endpoint receives, once fragments are joined.
public enum WebSocketMessage: Sendable, Equatable {
    /// A text message (valid UTF-8).
    case text(String)
    /// A binary message.
    case binary([UInt8])
    /// A ping, with its payload (to be echoed in a pong).
    case ping([UInt8])
    /// A pong, with its payload.
    case pong([UInt8])
    /// A close frame, with its code (none when the payload was empty) and reason.
    case close(code: UInt16?, reason: String)
}

/// Joins fragmented data frames into messages (control frames may come between fragments) and
/// checks what RFC 6455 requires of them: continuation only inside a message, no new message
/// before the last one ended, text and close reasons valid UTF-8, close codes that may be sent,
/// and no message larger than the limit.
public struct WebSocketMessageAssembler: Sendable {
    /// The largest message accepted (all fragments together).
    public let maximumMessageSize: Int
    private var opcode: WebSocketOpcode?
    private var fragments: [UInt8] = []

    /// An assembler.
    /// - Parameter maximumMessageSize: the largest message accepted.
    public init(maximumMessageSize: Int = 1 << 20) {
        self.maximumMessageSize = maximumMessageSize
    }

    /// Whether a fragmented message has begun and not ended.
    public var isInsideMessage: Bool { opcode != nil }

    /// The message `frame` completes, or `nil` when it is a fragment of one still incomplete.
    /// - Throws: ``WebSocketError`` (`protocolViolation`, `invalidUTF8`, `messageTooBig`).
    public mutating func receive(_ frame: WebSocketFrame) throws(WebSocketError) -> WebSocketMessage? {
        switch frame.opcode {
        case .ping: return .ping(frame.payload)
        case .pong: return .pong(frame.payload)
        case .close: return try Self.close(frame.payload)
        case .text, .binary:
            guard opcode == nil else {
                throw WebSocketError(
                    .protocolViolation, "A new \(frame.opcode) message began before the fragmented \(opcode.map { "\($0)" } ?? "") message ended.")
            }
            if frame.fin { return try Self.message(frame.opcode, frame.payload) }
            opcode = frame.opcode
            fragments = []
            try add(frame.payload)
            return nil
        case .continuation:
            guard let current = opcode else { throw WebSocketError(.protocolViolation, "A continuation frame arrived outside a fragmented message.") }
            try add(frame.payload)
            guard frame.fin else { return nil }
            let payload = fragments
            opcode = nil
            fragments = []
            return try Self.message(current, payload)
        }
    }

    private mutating func add(_ payload: [UInt8]) throws(WebSocketError) {
        guard fragments.count + payload.count <= maximumMessageSize else {
            throw WebSocketError(.messageTooBig, "A fragmented message grew past the limit of \(maximumMessageSize) bytes.")
        }
        fragments += payload
    }

    private static func message(_ opcode: WebSocketOpcode, _ payload: [UInt8]) throws(WebSocketError) -> WebSocketMessage {
        guard opcode == .text else { return .binary(payload) }
        guard let text = String(validating: payload, as: UTF8.self) else {
            throw WebSocketError(.invalidUTF8, "A text message of \(payload.count) bytes is not valid UTF-8.")
        }
        return .text(text)
    }

    private static func close(_ payload: [UInt8]) throws(WebSocketError) -> WebSocketMessage {
        if payload.isEmpty { return .close(code: nil, reason: "") }
        guard payload.count >= 2 else { throw WebSocketError(.protocolViolation, "A close frame has a 1-byte payload.") }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        guard isSendable(code) else { throw WebSocketError(.protocolViolation, "A close frame has the code \(code), which may not be sent.") }
        guard let reason = String(validating: payload[2...], as: UTF8.self) else {
            throw WebSocketError(.invalidUTF8, "A close frame's reason is not valid UTF-8.")
        }
        return .close(code: code, reason: reason)
    }

    /// The codes a close frame may carry (RFC 6455 §7.4, with the later-registered 1012–1014).
    static func isSendable(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }
}
