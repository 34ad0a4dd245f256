import AmplifyConcurrency
import Amplify

/// A Logging plugin that keeps every message in memory, for tests:
/// `try Amplify.add(plugin: RecordingLoggingPlugin())`.
public final class RecordingLoggingPlugin: LoggingCategoryPlugin {
    /// One logged message.
    public struct Entry: Sendable, Equatable {
        /// Its level.
        public let level: Amplify.LogLevel
        /// The logger's category or namespace.
        public let category: String
        /// The text.
        public let message: String
        /// The metadata it was logged with (`LogMetadataKey`), empty for the level methods.
        public var metadata: [String: String] = [:]
    }

    private let entries = Locked<[Entry]>([])
    private let level: Locked<Amplify.LogLevel>
    private let enabled = Locked(true)

    /// A recorder that keeps messages up to `logLevel`.
    public init(logLevel: Amplify.LogLevel = .verbose) {
        level = Locked(logLevel)
    }

    /// `"recordingLoggingPlugin"`.
    public var key: PluginKey { "recordingLoggingPlugin" }

    /// Everything logged so far.
    public var messages: [Entry] { entries.withLock { $0 } }

    /// The level it keeps messages up to.
    public var logLevel: Amplify.LogLevel {
        get { level.withLock { $0 } }
        set { level.withLock { $0 = newValue } }
    }

    /// Ignores its configuration.
    public func configure(using configuration: Any?) throws {}

    /// Forgets what it recorded.
    public func reset() async { entries.withLock { $0.removeAll() } }

    /// The logger with no category.
    public var `default`: any Logger { logger(forCategory: "Amplify") }

    /// A logger for `category` (keeps messages up to the lower of the two levels).
    public func logger(forCategory category: String, logLevel: Amplify.LogLevel) -> any Logger {
        RecordingLogger(category: category, fixedLevel: logLevel, plugin: self)
    }

    /// A logger for `category`.
    public func logger(forCategory category: String) -> any Logger {
        RecordingLogger(category: category, fixedLevel: nil, plugin: self)
    }

    /// A logger for `namespace`.
    public func logger(forNamespace namespace: String) -> any Logger {
        RecordingLogger(category: namespace, fixedLevel: nil, plugin: self)
    }

    /// Turns recording on.
    public func enable() { enabled.withLock { $0 = true } }
    /// Turns recording off.
    public func disable() { enabled.withLock { $0 = false } }

    fileprivate func record(
        _ level: Amplify.LogLevel, fixedLevel: Amplify.LogLevel?, category: String, _ message: () -> String,
        metadata: () -> [String: String] = { [:] }
    ) {
        guard enabled.withLock({ $0 }) else { return }
        let limit = min(fixedLevel ?? logLevel, logLevel)
        guard limit != .none, level <= limit else { return }
        let entry = Entry(level: level, category: category, message: message(), metadata: metadata())
        entries.withLock { $0.append(entry) }
    }
}

private struct RecordingLogger: Logger {
    let category: String
    let fixedLevel: Amplify.LogLevel?
    let plugin: RecordingLoggingPlugin

    var logLevel: Amplify.LogLevel { fixedLevel ?? plugin.logLevel }

    func error(_ message: @autoclosure () -> String) { plugin.record(.error, fixedLevel: fixedLevel, category: category, message) }
    func error(error: any Error) { plugin.record(.error, fixedLevel: fixedLevel, category: category) { "\(error)" } }
    func warn(_ message: @autoclosure () -> String) { plugin.record(.warn, fixedLevel: fixedLevel, category: category, message) }
    func info(_ message: @autoclosure () -> String) { plugin.record(.info, fixedLevel: fixedLevel, category: category, message) }
    func debug(_ message: @autoclosure () -> String) { plugin.record(.debug, fixedLevel: fixedLevel, category: category, message) }
    func verbose(_ message: @autoclosure () -> String) { plugin.record(.verbose, fixedLevel: fixedLevel, category: category, message) }
    func log(level: Amplify.LogLevel, _ message: @autoclosure () -> String, metadata: @autoclosure () -> [String: String]) {
        guard level != .none else { return }
        plugin.record(level, fixedLevel: fixedLevel, category: category, message, metadata: metadata)
    }
}
