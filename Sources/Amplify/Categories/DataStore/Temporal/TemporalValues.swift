import Foundation

/// The calendar arithmetic the three types share, from their instant in milliseconds.
protocol ISO8601Value: TemporalSpec, Codable, Hashable, Comparable, Sendable {
    static var shape: ISO8601Text.Shape { get }
    /// The value the parts of its text stand for (a date keeps the date as written).
    init(parsed: ISO8601Text.Parsed)
}

extension ISO8601Value {
    /// Milliseconds since 1970 of the instant, rounded down: what equality and order compare, as
    /// amplify-swift compares the values' full text.
    var epochMilliseconds: Int64 {
        let seconds = foundationDate.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 9e12 else { return seconds < 0 ? .min : .max }
        // To the microsecond first: `Date` holds seconds since 2001, and the difference to 1970
        // can land a hair below a whole millisecond.
        return Int64(((seconds * 1_000_000).rounded() / 1000).rounded(.down))
    }

    public init(iso8601String: String) throws {
        guard let parsed = ISO8601Text.parse(iso8601String, Self.shape) else {
            throw Temporal.invalid(iso8601String, Self.shape)
        }
        self.init(parsed: parsed)
    }

    public init(iso8601String: String, format: TemporalFormat) throws {
        let expected = format.parts(for: Self.shape)
        guard let parsed = ISO8601Text.parse(iso8601String, Self.shape),
            parsed.hasSeconds == (expected.seconds || expected.fraction),
            (parsed.fractionDigits > 0) == expected.fraction, (parsed.offset != nil) == expected.zone
        else {
            throw Temporal.invalid(iso8601String, Self.shape)
        }
        self.init(parsed: parsed)
    }

    init(parsed: ISO8601Text.Parsed) {
        self.init(Foundation.Date(timeIntervalSince1970: parsed.epochSeconds), timeZone: Temporal.zone(offset: parsed.offset ?? 0))
    }

    public var iso8601String: String {
        iso8601FormattedString(format: .full, timeZone: timeZone ?? .utc)
    }

    public func iso8601FormattedString(format: TemporalFormat, timeZone: TimeZone = .utc) -> String {
        let milliseconds = epochMilliseconds
        let offset = timeZone.secondsFromGMT(for: foundationDate)
        let local = milliseconds + Int64(offset) * 1000
        let day = local >= 0 ? local / 86_400_000 : (local + 1) / 86_400_000 - 1
        let millisecondOfDay = local - day * 86_400_000
        let parts = format.parts(for: Self.shape)
        var text = ""
        if Self.shape != .time { text += ISO8601Text.dateText(day: day) }
        if Self.shape == .dateTime { text += "T" }
        if Self.shape != .date {
            text += ISO8601Text.timeText(
                secondOfDay: millisecondOfDay / 1000, milliseconds: millisecondOfDay % 1000, seconds: parts.seconds,
                fraction: parts.fraction)
        }
        if parts.zone { text += ISO8601Text.zoneText(offset: offset) }
        return text
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let parsed = ISO8601Text.parse(text, Self.shape) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: Temporal.invalid(text, Self.shape).errorDescription)
        }
        self.init(parsed: parsed)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso8601String)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.epochMilliseconds == rhs.epochMilliseconds }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.epochMilliseconds < rhs.epochMilliseconds }
    public func hash(into hasher: inout Hasher) { hasher.combine(epochMilliseconds) }
}

extension Temporal {
    /// AppSync's `AWSDate`: a calendar date, `2024-05-01` (read also with a zone, `2024-05-01Z`,
    /// `2024-05-01+02:00`: the date as written). Held as midnight UTC of that date.
    public struct Date: ISO8601Value {
        static var shape: ISO8601Text.Shape { .date }
        public let foundationDate: Foundation.Date
        /// Always UTC.
        public var timeZone: TimeZone? { .utc }

        /// Today in UTC.
        public static func now() -> Self { Self(Foundation.Date(), timeZone: .utc) }

        /// The UTC calendar date of `date` (`timeZone` is ignored, as amplify-swift ignores it).
        public init(_ date: Foundation.Date, timeZone: TimeZone? = .utc) {
            let seconds = date.timeIntervalSince1970
            let day = seconds.isFinite ? (seconds / 86_400).rounded(.down) : 0
            foundationDate = Foundation.Date(timeIntervalSince1970: day * 86_400)
        }

        init(parsed: ISO8601Text.Parsed) {
            foundationDate = Foundation.Date(timeIntervalSince1970: Double(parsed.day) * 86_400)
        }
    }

    /// AppSync's `AWSDateTime`: an instant and the zone it is written in,
    /// `2024-05-01T13:45:30.250Z`.
    public struct DateTime: ISO8601Value {
        static var shape: ISO8601Text.Shape { .dateTime }
        public let foundationDate: Foundation.Date
        public let timeZone: TimeZone?

        /// Now, in UTC.
        public static func now() -> Self { Self(Foundation.Date(), timeZone: .utc) }

        /// The time of day of this value, in UTC.
        public var time: Time { Time(foundationDate, timeZone: timeZone) }

        /// The instant `date`, written in `timeZone`.
        public init(_ date: Foundation.Date, timeZone: TimeZone? = .utc) {
            foundationDate = date
            self.timeZone = timeZone
        }
    }

    /// AppSync's `AWSTime`: a time of day, `13:45:30.250Z`. Held on 2000-01-01 UTC, as
    /// amplify-swift holds it; text with a zone is moved to UTC.
    public struct Time: ISO8601Value {
        static var shape: ISO8601Text.Shape { .time }
        public let foundationDate: Foundation.Date
        /// Always UTC.
        public var timeZone: TimeZone? { .utc }

        /// The time of day now, in UTC.
        public static func now() -> Self { Self(Foundation.Date(), timeZone: .utc) }

        /// The UTC time of day of `date` (`timeZone` is ignored, as amplify-swift ignores it).
        public init(_ date: Foundation.Date, timeZone: TimeZone? = .utc) {
            let seconds = date.timeIntervalSince1970
            let ofDay = seconds.isFinite ? seconds - (seconds / 86_400).rounded(.down) * 86_400 : 0
            foundationDate = Foundation.Date(timeIntervalSince1970: Time.day2000 + ofDay)
        }

        /// 2000-01-01T00:00:00Z.
        static let day2000: Double = 946_684_800
    }
}

extension Temporal.Date: Persistable {}
extension Temporal.DateTime: Persistable {}
extension Temporal.Time: Persistable {}
