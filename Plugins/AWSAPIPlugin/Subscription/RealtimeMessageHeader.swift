import Amplify

/// The `type` and `id` of a real-time message, and where its payload is, read by one pass over
/// its top-level members (``JSONSpans``): what routes a message, without decoding its payload (a
/// `data` message's payload is decoded once, into the response type, by the subscription it
/// belongs to, from the span found here).
///
/// The pass checks the structure it walks (one top-level object, strings closed, brackets
/// matched in kind, nothing after the object but white space); it gives up, and the caller takes
/// the careful path, on anything else, including escapes in a key or in the `type` or `id` value
/// and a key twice.
package struct RealtimeMessageHeader: Equatable, Sendable {
    /// The message's `type` (`data`, `ka`, `start_ack`, …).
    package let type: String
    /// The message's `id`, for messages about one subscription.
    package let id: String?
    /// The byte range of the message's `payload`, when it has one.
    package let payload: Range<Int>?

    /// A header with these members (for tests).
    package init(typeForTesting type: String, id: String?, payload: Range<Int>? = nil) {
        self.type = type
        self.id = id
        self.payload = payload
    }

    /// The header of `bytes`, or `nil` when the pass gives up (not an object, no string `type`,
    /// a broken structure, an escape in a key or in `type` or `id`, a key twice).
    package init?(scanning bytes: [UInt8]) {
        let spans = JSONSpans(bytes)
        guard let root = spans.trimmed(), let members = spans.values(of: ["type", "id", "payload"], in: root),
            let typeSpan = members[0], let type = spans.plainString(typeSpan)
        else { return nil }
        var id: String?
        if let idSpan = members[1], bytes[idSpan.lowerBound] == UInt8(ascii: "\"") {
            guard let text = spans.plainString(idSpan) else { return nil }
            id = text
        }
        self.type = type
        self.id = id
        payload = members[2]
    }
}
