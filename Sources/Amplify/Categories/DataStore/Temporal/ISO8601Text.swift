/// The ISO 8601 text of AppSync's `AWSDate`, `AWSTime` and `AWSDateTime` scalars, read and written
/// by hand: a byte scan and the civil-calendar arithmetic, no `DateFormatter` (which on Linux costs
/// microseconds a value and a lock).
///
/// Read: `[-]YYYY-MM-DD`, `hh:mm[:ss[.f…]]` with 1–9 fraction digits, and a zone `Z`, `±hh`,
/// `±hhmm`, `±hh:mm` or `±hh:mm:ss`. Written: at least four year digits, milliseconds truncated,
/// the zone as `Z` or `±hh:mm` (`±hh:mm:ss` when the offset has seconds).
enum ISO8601Text {
    /// What one string held.
    struct Parsed: Equatable {
        /// Days since 1970-01-01 of the calendar date, if the string had one.
        var day: Int64 = 0
        /// Seconds into the day of the wall-clock time, if the string had one.
        var secondOfDay: Int64 = 0
        /// Nanoseconds of the fraction.
        var nanoseconds: Int64 = 0
        /// Seconds east of UTC, or `nil` when the string had no zone.
        var offset: Int?
        /// Whether the time had seconds, and how many fraction digits.
        var hasSeconds = false
        var fractionDigits = 0

        /// The instant: the wall-clock time less the offset (UTC when there was no zone).
        var epochSeconds: Double {
            Double(day * 86_400 + secondOfDay - Int64(offset ?? 0)) + Double(nanoseconds) / 1e9
        }
    }

    /// What a string must hold: a date, a time, or both (`T` between them).
    enum Shape { case date, time, dateTime }

    /// The parts of `text` in `shape`, or `nil` when it is not one.
    static func parse(_ text: String, _ shape: Shape) -> Parsed? {
        var text = text
        return text.withUTF8 { bytes in
            var scanner = Scanner(bytes: bytes)
            var parsed = Parsed()
            if shape != .time {
                guard let day = scanner.date() else { return nil }
                parsed.day = day
                if shape == .dateTime {
                    guard scanner.take(UInt8(ascii: "T")) || scanner.take(UInt8(ascii: "t")) else { return nil }
                }
            }
            if shape != .date {
                guard scanner.time(into: &parsed) else { return nil }
            }
            if !scanner.atEnd {
                guard let offset = scanner.zone(), scanner.atEnd else { return nil }
                parsed.offset = offset
            }
            return parsed
        }
    }

    /// `[-]YYYY-MM-DD` of the day `day` days after 1970-01-01.
    static func dateText(day: Int64) -> String {
        let (year, month, dayOfMonth) = civil(fromDays: day)
        var text = year < 0 ? "-" : ""
        text += padded(abs(year), 4)
        text += "-" + padded(month, 2) + "-" + padded(dayOfMonth, 2)
        return text
    }

    /// `hh:mm`, `hh:mm:ss` or `hh:mm:ss.SSS` of a second of the day and its milliseconds.
    static func timeText(secondOfDay: Int64, milliseconds: Int64, seconds: Bool, fraction: Bool) -> String {
        var text = padded(secondOfDay / 3600, 2) + ":" + padded(secondOfDay / 60 % 60, 2)
        if seconds || fraction { text += ":" + padded(secondOfDay % 60, 2) }
        if fraction { text += "." + padded(milliseconds, 3) }
        return text
    }

    /// `Z`, `±hh:mm` or `±hh:mm:ss` of an offset in seconds east of UTC.
    static func zoneText(offset: Int) -> String {
        guard offset != 0 else { return "Z" }
        let magnitude = abs(offset)
        var text = (offset < 0 ? "-" : "+") + padded(Int64(magnitude / 3600), 2) + ":" + padded(Int64(magnitude / 60 % 60), 2)
        if magnitude % 60 != 0 { text += ":" + padded(Int64(magnitude % 60), 2) }
        return text
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date `days` days after 1970-01-01 (`civil_from_days`).
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The number of days in a month of a year.
    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func padded(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// A cursor over the string's UTF-8 bytes.
    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        var atEnd: Bool { index == bytes.count }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// Exactly `count` digits, or `nil`.
        mutating func digits(_ count: Int) -> Int64? {
            guard bytes.count - index >= count else { return nil }
            var value: Int64 = 0
            for _ in 0..<count {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int64(digit)
                index += 1
            }
            return value
        }

        mutating func date() -> Int64? {
            let negative = take(UInt8(ascii: "-"))
            var yearDigits = 0
            var year: Int64 = 0
            while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10, yearDigits < 9 {
                year = year * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
                index += 1
                yearDigits += 1
            }
            guard yearDigits >= 4, take(UInt8(ascii: "-")), let month = digits(2), take(UInt8(ascii: "-")),
                let day = digits(2)
            else { return nil }
            if negative { year = -year }
            guard (1...12).contains(month), day >= 1, day <= ISO8601Text.daysIn(month: month, year: year) else { return nil }
            return ISO8601Text.days(year: year, month: month, day: day)
        }

        mutating func time(into parsed: inout Parsed) -> Bool {
            guard let hour = digits(2), take(UInt8(ascii: ":")), let minute = digits(2), hour < 24, minute < 60 else {
                return false
            }
            var second: Int64 = 0
            if take(UInt8(ascii: ":")) {
                guard let value = digits(2), value < 60 else { return false }
                second = value
                parsed.hasSeconds = true
                if take(UInt8(ascii: ".")) || take(UInt8(ascii: ",")) {
                    var nanoseconds: Int64 = 0
                    var count = 0
                    while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
                        guard count < 9 else { return false }
                        nanoseconds = nanoseconds * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
                        index += 1
                        count += 1
                    }
                    guard count > 0 else { return false }
                    for _ in count..<9 { nanoseconds *= 10 }
                    parsed.nanoseconds = nanoseconds
                    parsed.fractionDigits = count
                }
            }
            parsed.secondOfDay = hour * 3600 + minute * 60 + second
            return true
        }

        mutating func zone() -> Int? {
            if take(UInt8(ascii: "Z")) || take(UInt8(ascii: "z")) { return 0 }
            let sign: Int64
            if take(UInt8(ascii: "+")) {
                sign = 1
            } else if take(UInt8(ascii: "-")) {
                sign = -1
            } else {
                return nil
            }
            guard let hours = digits(2), hours <= 18 else { return nil }
            var minutes: Int64 = 0
            var seconds: Int64 = 0
            if take(UInt8(ascii: ":")) {
                guard let value = digits(2), value < 60 else { return nil }
                minutes = value
                if take(UInt8(ascii: ":")) {
                    guard let value = digits(2), value < 60 else { return nil }
                    seconds = value
                }
            } else if !atEnd {
                guard let value = digits(2), value < 60 else { return nil }
                minutes = value
            }
            return Int(sign * (hours * 3600 + minutes * 60 + seconds))
        }
    }
}
