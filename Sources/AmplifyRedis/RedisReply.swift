import CHiredis

/// A Redis reply, copied out of hiredis's `redisReply` (which hiredis frees after the callback).
package indirect enum RedisReply: Equatable, Sendable {
    case string(String)
    case status(String)
    case error(String)
    case integer(Int)
    case array([RedisReply])
    case null

    package init(_ raw: UnsafeMutableRawPointer) {
        let reply = raw.assumingMemoryBound(to: redisReply.self).pointee
        switch reply.type {
        case REDIS_REPLY_STRING, REDIS_REPLY_STATUS, REDIS_REPLY_ERROR:
            let text = reply.str.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: Int(reply.len)), as: UTF8.self) } ?? ""
            self = reply.type == REDIS_REPLY_STRING ? .string(text) : reply.type == REDIS_REPLY_STATUS ? .status(text) : .error(text)
        case REDIS_REPLY_INTEGER:
            self = .integer(Int(reply.integer))
        case REDIS_REPLY_ARRAY:
            var elements: [RedisReply] = []
            for index in 0..<Int(reply.elements) {
                if let element = reply.element?[index] { elements.append(RedisReply(UnsafeMutableRawPointer(element))) }
            }
            self = .array(elements)
        default:
            self = .null
        }
    }

    /// The text of a string or status reply.
    package var text: String? {
        switch self {
        case .string(let text), .status(let text): text
        default: nil
        }
    }

    /// The elements of an array reply.
    package var elements: [RedisReply]? {
        if case .array(let elements) = self { elements } else { nil }
    }

    /// The message of an error reply.
    package var errorMessage: String? {
        if case .error(let message) = self { message } else { nil }
    }
}
