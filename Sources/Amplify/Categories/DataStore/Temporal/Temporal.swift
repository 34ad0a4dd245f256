import Foundation

/// amplify-swift's namespace of AppSync's date and time scalars: ``Temporal/Date`` (`AWSDate`),
/// ``Temporal/DateTime`` (`AWSDateTime`) and ``Temporal/Time`` (`AWSTime`).
public enum Temporal {}

/// What the three temporal types share: an instant, the zone it is written in, and its ISO 8601
/// text in AppSync's formats.
public protocol TemporalSpec {
    /// The current date, time or date and time.
    static func now() -> Self
    /// The instant this value stands for.
    var foundationDate: Foundation.Date { get }
    /// The zone the value is written in (UTC for dates and times).
    var timeZone: TimeZone? { get }
    /// The value in ``TemporalFormat/full``, in its own zone.
    var iso8601String: String { get }
    /// A value read from ISO 8601 text in any of ``TemporalFormat``'s formats.
    /// - Throws: ``DataStoreError/decodingError(_:_:)`` when the text is not one.
    init(iso8601String: String) throws
    /// A value read from ISO 8601 text in exactly `format`.
    /// - Throws: ``DataStoreError/decodingError(_:_:)`` when the text is not in that format.
    init(iso8601String: String, format: TemporalFormat) throws
    /// The value at `date`, written in `timeZone`.
    init(_ date: Foundation.Date, timeZone: TimeZone?)
    /// The value's text in `format`, written in `timeZone`.
    func iso8601FormattedString(format: TemporalFormat, timeZone: TimeZone) -> String
}

extension TimeZone {
    /// Coordinated Universal Time.
    public static var utc: TimeZone { Temporal.utcZone }
}

extension Temporal {
    static let utcZone = TimeZone(secondsFromGMT: 0) ?? .gmt

    /// The zone `offset` seconds east of UTC.
    static func zone(offset: Int) -> TimeZone {
        offset == 0 ? utcZone : TimeZone(secondsFromGMT: offset) ?? utcZone
    }

    /// The error for text that is not a date, time or date and time.
    static func invalid(_ text: String, _ shape: ISO8601Text.Shape) -> DataStoreError {
        let example =
            switch shape {
            case .date: "2024-05-01 or 2024-05-01Z"
            case .time: "13:45, 13:45:30 or 13:45:30.250Z"
            case .dateTime: "2024-05-01T13:45:30.250Z or 2024-05-01T13:45:30+02:00"
            }
        return DataStoreError.invalidDateFormat(text, example: example)
    }
}

/// How much of a date, time or date and time to write (and, when reading with a format, to
/// expect): amplify-swift's four formats.
public struct TemporalFormat: Sendable, Equatable {
    let level: Int

    /// `yyyy-MM-dd`, `yyyy-MM-dd'T'HH:mm`, `HH:mm`.
    public static let short = TemporalFormat(level: 0)
    /// `yyyy-MM-ddZZZZZ`, `yyyy-MM-dd'T'HH:mm:ss`, `HH:mm:ss`.
    public static let medium = TemporalFormat(level: 1)
    /// `yyyy-MM-ddZZZZZ`, `yyyy-MM-dd'T'HH:mm:ssZZZZZ`, `HH:mm:ss.SSS`.
    public static let long = TemporalFormat(level: 2)
    /// `yyyy-MM-ddZZZZZ`, `yyyy-MM-dd'T'HH:mm:ss.SSSZZZZZ`, `HH:mm:ss.SSSZZZZZ`.
    public static let full = TemporalFormat(level: 3)
    /// The four formats, fullest first.
    public static let allCases: [TemporalFormat] = [.full, .long, .medium, .short]

    /// What this format writes for a shape: seconds, milliseconds, the zone.
    func parts(for shape: ISO8601Text.Shape) -> (seconds: Bool, fraction: Bool, zone: Bool) {
        switch shape {
        case .date: (false, false, level > 0)
        case .dateTime: (level > 0, level == 3, level >= 2)
        case .time: (level > 0, level >= 2, level == 3)
        }
    }
}

extension TemporalSpec {
    /// The value's text in `format`, written in UTC.
    public func iso8601FormattedString(format: TemporalFormat) -> String {
        iso8601FormattedString(format: format, timeZone: .utc)
    }
}
