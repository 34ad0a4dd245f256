extension Duration {
    /// The duration in whole milliseconds, rounded up, clamped to `0...Int64.max`: negative
    /// durations give 0 and durations beyond `Int64.max` milliseconds give `Int64.max`, so
    /// converting a huge timeout or timer delay never traps.
    public var saturatingMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0, attoseconds >= 0 || seconds > 0 else { return 0 }
        let (millis, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return .max }
        let fraction = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        let (total, overflowAdding) = millis.addingReportingOverflow(fraction)
        return overflowAdding ? .max : max(0, total)
    }

    /// `seconds` as a duration, for delays computed in floating point: NaN and negative values
    /// give zero and values beyond what a `Duration` of milliseconds holds saturate at
    /// `Int64.max` milliseconds (about 292 million years), so no conversion traps.
    public static func saturatingSeconds(_ seconds: Double) -> Duration {
        guard seconds > 0 else { return .zero }
        let milliseconds = (seconds * 1000).rounded(.up)
        guard milliseconds < 9.2e18 else { return .milliseconds(Int64.max) }
        return .milliseconds(Int64(milliseconds))
    }
}
