/// The opcode of a WebSocket frame (RFC 6455 §5.2).
public enum WebSocketOpcode: UInt8, Sendable, Equatable {
    /// A further fragment of a message.
    case continuation = 0x0
    /// A text message (or its first fragment).
    case text = 0x1
    /// A binary message (or its first fragment).
    case binary = 0x2
    /// Close.
    case close = 0x8
    /// Ping.
    case ping = 0x9
    /// Pong.
    case pong = 0xA

    /// Whether it is a control frame (close, ping, pong).
    public var isControl: Bool { rawValue & 0x8 != 0 }
}

/// One WebSocket frame, unmasked.
public struct WebSocketFrame: Sendable, Equatable {
    /// Whether it is the last fragment of its message.
    public var fin: Bool
    /// The opcode.
    public var opcode: WebSocketOpcode
    /// The payload (unmasked).
    public var payload: [UInt8]

    /// A frame.
    /// - Parameters:
    ///   - fin: whether it is the last fragment of its message.
    ///   - opcode: the opcode.
    ///   - payload: the payload.
    public init(fin: Bool = true, opcode: WebSocketOpcode, payload: [UInt8]) {
        self.fin = fin
        self.opcode = opcode
        self.payload = payload
    }

    /// The frame on the wire: 7-, 16- or 64-bit length as the payload needs, masked with
    /// `maskingKey` (4 bytes; a client masks every frame) or unmasked when it is `nil`.
    public func encoded(maskingKey: [UInt8]?) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(payload.count + 14)
        bytes.append((fin ? 0x80 : 0) | opcode.rawValue)
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        switch payload.count {
        case 0...125:
            bytes.append(maskBit | UInt8(payload.count))
        case 126...0xFFFF:
            bytes.append(maskBit | 126)
            bytes.append(UInt8(payload.count >> 8))
            bytes.append(UInt8(payload.count & 0xFF))
        default:
            bytes.append(maskBit | 127)
            let length = UInt64(payload.count)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((length >> UInt64(shift)) & 0xFF)) }
        }
        guard let maskingKey, maskingKey.count == 4 else {
            bytes += payload
            return bytes
        }
        bytes += maskingKey
        let start = bytes.count
        bytes += payload
        for index in 0..<payload.count { bytes[start + index] ^= maskingKey[index & 3] }
        return bytes
    }

    /// The frames of one message: a single frame, or fragments of at most `fragmentSize` bytes
    /// (the first with `opcode`, the rest `continuation`, the last with `fin`).
    public static func message(_ opcode: WebSocketOpcode, _ payload: [UInt8], fragmentSize: Int? = nil) -> [WebSocketFrame] {
        guard let fragmentSize, fragmentSize > 0, payload.count > fragmentSize else { return [WebSocketFrame(opcode: opcode, payload: payload)] }
        var frames: [WebSocketFrame] = []
        var start = 0
        while start < payload.count {
            let end = min(start + fragmentSize, payload.count)
            frames.append(
                WebSocketFrame(fin: end == payload.count, opcode: start == 0 ? opcode : .continuation, payload: Array(payload[start..<end])))
            start = end
        }
        return frames
    }

    /// The payload of a close frame: the code (big-endian) and the UTF-8 reason.
    public static func closePayload(code: UInt16?, reason: String) -> [UInt8] {
        guard let code else { return [] }
        return [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8.prefix(123))
    }
}
