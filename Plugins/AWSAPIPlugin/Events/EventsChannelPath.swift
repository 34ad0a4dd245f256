import Amplify

/// AppSync Events' rules for channel paths, checked before anything is sent so that a bad path
/// is an error that says what is wrong, not a refusal from the service.
///
/// A path is a namespace and up to four more segments (five in all), each 1 to 50 of
/// `A-Z a-z 0-9 -`, written with or without the leading `/` (`/default/room/1`,
/// `default/room/1`). A subscription may end in the wildcard `*` (`/default/*`: the namespace's
/// every channel; `/default/room/*`: every channel below `room`); a publish may not.
enum EventsChannelPath {
    /// The most segments a path has, the namespace included.
    static let maximumSegments = 5
    /// The longest segment.
    static let maximumSegmentLength = 50

    /// `path` with its leading `/`, or the error naming what is wrong.
    /// - Throws: `APIError.operationError` for an empty path, too many segments, a segment that
    ///   is empty, too long or has other characters, or a wildcard where it is not allowed.
    static func validated(_ path: String, wildcardAllowed: Bool) throws(APIError) -> String {
        let body = path.hasPrefix("/") ? path.dropFirst() : Substring(path)
        let segments = body.split(separator: "/", omittingEmptySubsequences: false)
        func refuse(_ problem: String) -> APIError {
            .operationError(
                "The channel \"\(path)\" \(problem).",
                "Write a channel as /namespace/segment/…: at most \(maximumSegments) segments of 1 to \(maximumSegmentLength) letters, digits or '-'"
                    + (wildcardAllowed ? ", the last of them may be * to subscribe to every channel below" : ", no wildcard when publishing") + ".")
        }
        guard !body.isEmpty else { throw refuse("is empty") }
        guard segments.count <= maximumSegments else { throw refuse("has \(segments.count) segments; AppSync allows \(maximumSegments)") }
        for (index, segment) in segments.enumerated() {
            if segment == "*" {
                guard wildcardAllowed else { throw refuse("has a wildcard; a publish names one channel") }
                guard index > 0 else { throw refuse("has a wildcard for its namespace") }
                guard index == segments.count - 1 else { throw refuse("has a wildcard that is not its last segment") }
                continue
            }
            guard !segment.isEmpty else { throw refuse("has an empty segment") }
            guard segment.utf8.count <= maximumSegmentLength else {
                throw refuse("has a segment of \(segment.utf8.count) characters (\"\(segment.prefix(20))…\"); at most \(maximumSegmentLength)")
            }
            guard segment.utf8.allSatisfy(isAllowed) else { throw refuse("has the segment \"\(segment)\" with a character other than A-Z a-z 0-9 -") }
        }
        return "/" + body
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
            true
        default: false
        }
    }
}

/// AppSync Events' limits on what one publish carries.
enum EventsPublishLimits {
    /// Events per publish.
    static let maximumEvents = 5
    /// Bytes of one event's JSON text (240 KB).
    static let maximumEventBytes = 240 * 1024

    /// The events as the JSON texts a publish carries.
    /// - Throws: `APIError.operationError` for no events, more than five, one over 240 KB, or a
    ///   number JSON cannot carry.
    static func encoded(_ events: [JSONValue]) throws(APIError) -> [String] {
        guard !events.isEmpty else {
            throw APIError.operationError("The publish has no events.", "Pass one to \(maximumEvents) events.")
        }
        guard events.count <= maximumEvents else {
            throw APIError.operationError(
                "The publish has \(events.count) events; AppSync Events takes at most \(maximumEvents) in one.",
                "Publish them in batches of \(maximumEvents) or fewer.")
        }
        var texts: [String] = []
        texts.reserveCapacity(events.count)
        for (index, event) in events.enumerated() {
            var bytes: [UInt8] = []
            do {
                try event.write(into: &bytes)
            } catch {
                throw APIError.operationError(
                    "Event \(index) of the publish holds a number JSON cannot carry (infinite or NaN).", "Replace it with a finite number or null.")
            }
            guard bytes.count <= maximumEventBytes else {
                throw APIError.operationError(
                    "Event \(index) of the publish is \(bytes.count) bytes of JSON; AppSync Events takes at most \(maximumEventBytes) (240 KB) per event.",
                    "Make the event smaller, e.g. send a reference to the data instead of the data.")
            }
            texts.append(String(decoding: bytes, as: UTF8.self))
        }
        return texts
    }
}
