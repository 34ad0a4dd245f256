/// Reads WebSocket frames from a byte stream as it arrives (RFC 6455 §5.2): 7-, 16- and 64-bit
/// lengths, masked (what a server receives) or unmasked (what a client receives) frames, with
/// the framing rules checked: no reserved bits (no extension is negotiated), no unknown opcode,
/// control frames unfragmented and at most 125 bytes, and no frame longer than the limit, which
/// is refused from its header before its payload is buffered.
public struct WebSocketFrameDecoder: Sendable {
    /// The largest payload accepted.
    public let maximumFrameSize: Int
    /// Whether frames must be masked (a server's view) or must not be (a client's).
    public let expectsMaskedFrames: Bool
    private var buffer: [UInt8] = []
    private var offset = 0

    /// A decoder.
    /// - Parameters:
    ///   - maximumFrameSize: the largest payload accepted.
    ///   - expectsMaskedFrames: `true` to decode what a client sends, `false` for what a server sends.
    public init(maximumFrameSize: Int = 1 << 20, expectsMaskedFrames: Bool = false) {
        self.maximumFrameSize = maximumFrameSize
        self.expectsMaskedFrames = expectsMaskedFrames
    }

    /// Adds bytes that arrived.
    public mutating func append<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        if offset > 0, offset >= buffer.count / 2 {
            buffer.removeFirst(offset)
            offset = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Whether bytes of an incomplete frame are waiting.
    public var hasPartialFrame: Bool { offset < buffer.count }

    /// The next complete frame, or `nil` until more bytes arrive.
    /// - Throws: ``WebSocketError`` (`protocolViolation`, `messageTooBig`) when the frame breaks
    ///   the rules; the stream cannot be read further.
    public mutating func nextFrame() throws(WebSocketError) -> WebSocketFrame? {
        let available = buffer.count - offset
        guard available >= 2 else { return nil }
        let first = buffer[offset]
        let second = buffer[offset + 1]
        guard first & 0x70 == 0 else { throw WebSocketError(.protocolViolation, "A frame has reserved bits set (no extension was negotiated).") }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw WebSocketError(.protocolViolation, "A frame has the unknown opcode \(first & 0x0F).")
        }
        let fin = first & 0x80 != 0
        let masked = second & 0x80 != 0
        if masked != expectsMaskedFrames {
            throw WebSocketError(.protocolViolation, masked ? "The server sent a masked frame." : "The client sent an unmasked frame.")
        }
        var header = 2
        var length = UInt64(second & 0x7F)
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(buffer[offset + 2]) << 8 | UInt64(buffer[offset + 3])
            header = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = 0
            for index in 0..<8 { length = length << 8 | UInt64(buffer[offset + 2 + index]) }
            guard length & (1 << 63) == 0 else {
                throw WebSocketError(.protocolViolation, "A frame's 64-bit length has its most significant bit set.")
            }
            header = 10
        }
        if opcode.isControl {
            guard fin else { throw WebSocketError(.protocolViolation, "A control frame (\(opcode)) is fragmented.") }
            guard length <= 125 else {
                throw WebSocketError(.protocolViolation, "A control frame (\(opcode)) has \(length) bytes; at most 125 are allowed.")
            }
        }
        guard length <= UInt64(maximumFrameSize) else {
            throw WebSocketError(.messageTooBig, "A frame of \(length) bytes is larger than the limit of \(maximumFrameSize).")
        }
        let maskLength = masked ? 4 : 0
        let total = header + maskLength + Int(length)
        guard available >= total else { return nil }
        let start = offset + header + maskLength
        var payload = Array(buffer[start..<(start + Int(length))])
        if masked {
            let key = Array(buffer[(offset + header)..<(offset + header + 4)])
            for index in 0..<payload.count { payload[index] ^= key[index & 3] }
        }
        offset += total
        return WebSocketFrame(fin: fin, opcode: opcode, payload: payload)
    }
}
