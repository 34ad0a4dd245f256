/// The `type` and `id` of a real-time message, read by scanning its bytes once: the members
/// needed to route a message, without decoding its payload (a `data` message's payload is
/// decoded once, into the response type, by the subscription it belongs to).
///
/// The scan checks the structure it walks (one top-level object, strings closed, brackets
/// matched, nothing after the object but white space); it gives up, and the caller takes the
/// careful path, on anything else, including escapes inside the `type` or `id` value.
package struct RealtimeMessageHeader: Equatable, Sendable {
    /// The message's `type` (`data`, `ka`, `start_ack`, …).
    package let type: String
    /// The message's `id`, for messages about one subscription.
    package let id: String?

    /// A header with these members (for tests).
    package init(typeForTesting type: String, id: String?) {
        self.type = type
        self.id = id
    }

    /// The header of `bytes`, or `nil` when the scan gives up (not an object, no string `type`,
    /// a broken structure, an escape in `type` or `id`).
    package init?(scanning bytes: [UInt8]) {
        var scanner = Scanner(bytes: bytes)
        guard let (type, id) = scanner.header() else { return nil }
        self.type = type
        self.id = id
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        mutating func header() -> (String, String?)? {
            skipSpace()
            guard next() == UInt8(ascii: "{") else { return nil }
            var type: String?
            var id: String?
            skipSpace()
            if peek() == UInt8(ascii: "}") {
                index += 1
            } else {
                while true {
                    skipSpace()
                    guard let key = plainString() else { return nil }
                    skipSpace()
                    guard next() == UInt8(ascii: ":") else { return nil }
                    skipSpace()
                    if key == "type" || key == "id", peek() == UInt8(ascii: "\"") {
                        guard let value = plainString() else { return nil }
                        if key == "type" { type = value } else { id = value }
                    } else {
                        guard skipValue() else { return nil }
                    }
                    skipSpace()
                    switch next() {
                    case UInt8(ascii: ","): continue
                    case UInt8(ascii: "}"): break
                    default: return nil
                    }
                    break
                }
            }
            skipSpace()
            guard index == bytes.count, let type else { return nil }
            return (type, id)
        }

        func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func next() -> UInt8? {
            guard index < bytes.count else { return nil }
            defer { index += 1 }
            return bytes[index]
        }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        /// A string with no escape in it, as text; `nil` for an escape or no closing quote.
        mutating func plainString() -> String? {
            guard next() == UInt8(ascii: "\"") else { return nil }
            let start = index
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    defer { index += 1 }
                    return String(decoding: bytes[start..<index], as: UTF8.self)
                case UInt8(ascii: "\\"), 0..<0x20:
                    return nil
                default:
                    index += 1
                }
            }
            return nil
        }

        /// Skips one value of any kind: strings to their closing quote (escapes honoured), objects
        /// and arrays to their matching bracket, anything else to the next delimiter.
        mutating func skipValue() -> Bool {
            var depth = 0
            var sawToken = false
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    guard skipString() else { return false }
                    sawToken = true
                    if depth == 0 { return true }
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    if depth == 0 { return sawToken }
                    depth -= 1
                    index += 1
                    sawToken = true
                    if depth == 0 { return true }
                    continue
                case UInt8(ascii: ","):
                    if depth == 0 { return sawToken }
                default:
                    sawToken = true
                }
                index += 1
            }
            return false
        }

        mutating func skipString() -> Bool {
            index += 1
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\\"): index += 2
                case UInt8(ascii: "\""):
                    index += 1
                    return true
                default: index += 1
                }
            }
            return false
        }
    }
}
