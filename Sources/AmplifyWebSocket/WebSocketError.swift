/// Why a WebSocket failed: the peer broke RFC 6455, sent text that is not UTF-8 or a message
/// larger than allowed, the handshake was refused, the connection could not be made or broke,
/// or a time limit passed.
public struct WebSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure.
    public enum Kind: Sendable, Equatable {
        /// The peer broke the framing rules (close code 1002).
        case protocolViolation
        /// A text message or close reason is not valid UTF-8 (close code 1007).
        case invalidUTF8
        /// A frame or message is larger than the limit (close code 1009).
        case messageTooBig
        /// The server did not accept the upgrade (status, headers or `Sec-WebSocket-Accept`).
        case handshakeFailed
        /// The connection could not be made (DNS, TCP, TLS, certificate) or broke.
        case connectionFailed
        /// The connection ended in the middle of a frame or of a fragmented message.
        case closedMidFrame
        /// The connection ended without a close frame.
        case closedWithoutCloseFrame
        /// A time limit passed (connect, handshake, close handshake).
        case timeout
    }

    /// The kind.
    public let kind: Kind
    /// What happened, in a sentence.
    public let message: String
    /// The HTTP status of a refused handshake, if there was one.
    public let httpStatus: Int?

    /// An error.
    /// - Parameters:
    ///   - kind: what kind of failure.
    ///   - message: what happened.
    ///   - httpStatus: the HTTP status of a refused handshake.
    public init(_ kind: Kind, _ message: String, httpStatus: Int? = nil) {
        self.kind = kind
        self.message = message
        self.httpStatus = httpStatus
    }

    /// The close code to send the peer for this failure (1002, 1007, 1009; 1006 when none is sent).
    public var closeCode: UInt16 {
        switch kind {
        case .protocolViolation: 1002
        case .invalidUTF8: 1007
        case .messageTooBig: 1009
        default: 1006
        }
    }

    /// The message.
    public var description: String { message }
}
