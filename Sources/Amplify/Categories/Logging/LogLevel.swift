extension Amplify {
    /// How much to log, from `.error` (least) to `.verbose` (most); `.none` logs nothing.
    public enum LogLevel: Int, Sendable, Comparable, CaseIterable, Codable {
        /// From least to most verbose; `none` turns logging off.
        case error = 0
        case warn, info, debug, verbose, none

        /// The level named `name` ("error", "warn", "info", "debug", "verbose", "none").
        public init?(name: String) {
            guard let level = Self.allCases.first(where: { "\($0)" == name.lowercased() }) else { return nil }
            self = level
        }

        /// Orders by verbosity.
        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    }
}

/// amplify-swift's top-level name for ``Amplify/LogLevel``: `error` 0, `warn` 1, `info` 2,
/// `debug` 3, `verbose` 4, `none` 5.
public typealias LogLevel = Amplify.LogLevel
