/// Range-checked readers for the numeric settings of a plugin's block.
///
/// Every numeric setting of this package's plugins has a documented range, checked when the
/// plugin is configured: a number outside it (including one beyond `Int`'s range, such as
/// `1e20`) throws a ``ConfigurationValueError`` whose `expected` states the range, for example
/// `a whole number of seconds from 1 to 86400`. Values that pass are safe to convert and to do
/// arithmetic with (no conversion traps later, at sign-in or in a timer).
extension JSONValue {
    /// The whole number at `keyPath` if it lies in `range`, or `nil` if the key is absent or `null`.
    /// - Parameters:
    ///   - keyPath: the dotted path inside the plugin's block.
    ///   - range: the values accepted.
    ///   - unit: what the number counts, for the message ("seconds", "bytes"); `nil` for a bare count.
    /// - Throws: ``ConfigurationValueError`` naming `keyPath` and the range when the value is not
    ///   a number, not whole, or outside `range`.
    public func boundedInt(_ keyPath: String, in range: ClosedRange<Int>, unit: String? = nil) throws(ConfigurationValueError) -> Int? {
        guard let value = value(at: keyPath), !value.isNull else { return nil }
        let expected = Self.rangeText(whole: true, unit: unit, Self.numberText(Double(range.lowerBound)), Self.numberText(Double(range.upperBound)))
        guard let number = value.doubleValue, number.isFinite, number.rounded() == number,
            number >= Double(range.lowerBound), number <= Double(range.upperBound),
            let whole = Int(exactly: number), range.contains(whole)
        else {
            throw ConfigurationValueError(keyPath: keyPath, expected: expected, found: value)
        }
        return whole
    }

    /// The number at `keyPath` if it lies in `range`, or `nil` if the key is absent or `null`.
    /// - Parameters:
    ///   - keyPath: the dotted path inside the plugin's block.
    ///   - range: the values accepted.
    ///   - unit: what the number measures, for the message ("seconds", "milliseconds").
    /// - Throws: ``ConfigurationValueError`` naming `keyPath` and the range when the value is not
    ///   a finite number inside `range`.
    public func boundedNumber(_ keyPath: String, in range: ClosedRange<Double>, unit: String? = nil) throws(ConfigurationValueError) -> Double? {
        guard let value = value(at: keyPath), !value.isNull else { return nil }
        guard let number = value.doubleValue, number.isFinite, range.contains(number) else {
            let expected = Self.rangeText(whole: false, unit: unit, Self.numberText(range.lowerBound), Self.numberText(range.upperBound))
            throw ConfigurationValueError(keyPath: keyPath, expected: expected, found: value)
        }
        return number
    }

    /// "a whole number of seconds from 1 to 86400".
    static func rangeText(whole: Bool, unit: String?, _ low: String, _ high: String) -> String {
        let noun = whole ? "a whole number" : "a number"
        return unit.map { "\(noun) of \($0) from \(low) to \(high)" } ?? "\(noun) from \(low) to \(high)"
    }

    /// `86400` rather than `86400.0`; fractions as Swift prints them (`0.001`).
    static func numberText(_ number: Double) -> String {
        if number.rounded() == number, let whole = Int64(exactly: number) { return String(whole) }
        return String(number)
    }
}
