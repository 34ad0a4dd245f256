import Foundation

/// An amount of calendar days, weeks, months or years to add to a ``Temporal/Date`` or
/// ``Temporal/DateTime``: `.now() + .days(3)`. Months and years keep the day of the month, or
/// the month's last day when it has fewer.
public struct DateUnit: Sendable, Equatable {
    let months: Int
    let days: Int

    /// One day.
    public static let oneDay: DateUnit = .days(1)
    /// One week.
    public static let oneWeek: DateUnit = .weeks(1)
    /// One month.
    public static let oneMonth: DateUnit = .months(1)
    /// One year.
    public static let oneYear: DateUnit = .years(1)

    /// `value` days.
    public static func days(_ value: Int) -> Self { Self(months: 0, days: value) }
    /// `value` weeks.
    public static func weeks(_ value: Int) -> Self { Self(months: 0, days: value.multipliedReportingOverflow(by: 7).partialValue) }
    /// `value` months.
    public static func months(_ value: Int) -> Self { Self(months: value, days: 0) }
    /// `value` years.
    public static func years(_ value: Int) -> Self { Self(months: value.multipliedReportingOverflow(by: 12).partialValue, days: 0) }
}

/// An amount of hours, minutes, seconds, milliseconds or nanoseconds to add to a
/// ``Temporal/Time`` or ``Temporal/DateTime``: `.now() + .hours(2)`.
public struct TimeUnit: Sendable, Equatable {
    let seconds: Double

    /// One second.
    public static let oneSecond: TimeUnit = .seconds(1)
    /// One minute.
    public static let oneMinute: TimeUnit = .minutes(1)
    /// One hour.
    public static let oneHour: TimeUnit = .hours(1)

    /// `value` hours.
    public static func hours(_ value: Int) -> Self { Self(seconds: Double(value) * 3600) }
    /// `value` minutes.
    public static func minutes(_ value: Int) -> Self { Self(seconds: Double(value) * 60) }
    /// `value` seconds.
    public static func seconds(_ value: Int) -> Self { Self(seconds: Double(value)) }
    /// `value` milliseconds.
    public static func milliseconds(_ value: Int) -> Self { Self(seconds: Double(value) / 1000) }
    /// `value` nanoseconds.
    public static func nanoseconds(_ value: Int) -> Self { Self(seconds: Double(value) / 1e9) }
}

/// A type `DateUnit`s add to and subtract from.
public protocol DateUnitOperable {
    /// `left` moved `right` later.
    static func + (left: Self, right: DateUnit) -> Self
    /// `left` moved `right` earlier.
    static func - (left: Self, right: DateUnit) -> Self
}

/// A type `TimeUnit`s add to and subtract from.
public protocol TimeUnitOperable {
    /// `left` moved `right` later.
    static func + (left: Self, right: TimeUnit) -> Self
    /// `left` moved `right` earlier.
    static func - (left: Self, right: TimeUnit) -> Self
}

extension TemporalSpec {
    /// This value moved by whole months and days in its own zone's calendar.
    func moved(months: Int, days: Int) -> Self {
        let offset = Double((timeZone ?? .utc).secondsFromGMT(for: foundationDate))
        let local = foundationDate.timeIntervalSince1970 + offset
        guard local.isFinite, abs(local) < 1e15 else { return self }
        let day = (local / 86_400).rounded(.down)
        let ofDay = local - day * 86_400
        var (year, month, dayOfMonth) = ISO8601Text.civil(fromDays: Int64(day))
        let totalMonths = year * 12 + (month - 1) + Int64(months)
        year = totalMonths >= 0 ? totalMonths / 12 : (totalMonths + 1) / 12 - 1
        month = totalMonths - year * 12 + 1
        dayOfMonth = min(dayOfMonth, ISO8601Text.daysIn(month: month, year: year))
        let newDay = Double(ISO8601Text.days(year: year, month: month, day: dayOfMonth)) + Double(days)
        return Self(Foundation.Date(timeIntervalSince1970: newDay * 86_400 + ofDay - offset), timeZone: timeZone)
    }

    func moved(seconds: Double) -> Self {
        Self(foundationDate.addingTimeInterval(seconds), timeZone: timeZone)
    }
}

extension TemporalSpec where Self: DateUnitOperable {
    public static func + (left: Self, right: DateUnit) -> Self { left.moved(months: right.months, days: right.days) }
    public static func - (left: Self, right: DateUnit) -> Self { left.moved(months: -right.months, days: -right.days) }
}

extension TemporalSpec where Self: TimeUnitOperable {
    public static func + (left: Self, right: TimeUnit) -> Self { left.moved(seconds: right.seconds) }
    public static func - (left: Self, right: TimeUnit) -> Self { left.moved(seconds: -right.seconds) }
}

extension Temporal.Date: DateUnitOperable {}
extension Temporal.DateTime: DateUnitOperable, TimeUnitOperable {}
extension Temporal.Time: TimeUnitOperable {}
