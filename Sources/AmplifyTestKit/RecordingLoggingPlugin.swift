import Amplify
import AmplifyConcurrency

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
        /// The namespace of a logger made with `logger(forCategory:forNamespace:)`, else `nil`.
        public var namespace: String? = nil
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

    /// A logger for `category` with a level of its own, `logLevel`, which wins over the
    /// plugin's in either direction.
    public func logger(forCategory category: String, logLevel: Amplify.LogLevel) -> any Logger {
        RecordingLogger(category: category, namespace: nil, ownLevel: logLevel, plugin: self)
    }

    /// A logger for `category` at the plugin's level.
    public func logger(forCategory category: String) -> any Logger {
        RecordingLogger(category: category, namespace: nil, ownLevel: nil, plugin: self)
    }

    /// A logger for `namespace` (recorded as its category) at the plugin's level.
    public func logger(forNamespace namespace: String) -> any Logger {
        RecordingLogger(category: namespace, namespace: nil, ownLevel: nil, plugin: self)
    }

    /// A logger for `category` at the plugin's level whose entries record `namespace`.
    public func logger(forCategory category: String, forNamespace namespace: String) -> any Logger {
        RecordingLogger(category: category, namespace: namespace, ownLevel: nil, plugin: self)
    }

    /// Turns recording on.
    public func enable() { enabled.withLock { $0 = true } }
    /// Turns recording off.
    public func disable() { enabled.withLock { $0 = false } }

    /// The level a logger with `ownLevel` keeps messages up to: `.none` while disabled, else its
    /// own level or the plugin's.
    fileprivate func effectiveLevel(_ ownLevel: Amplify.LogLevel?) -> Amplify.LogLevel {
        guard enabled.withLock({ $0 }) else { return .none }
        return ownLevel ?? logLevel
    }

    fileprivate func record(
        _ level: Amplify.LogLevel, from logger: RecordingLogger, _ message: () -> String, metadata: () -> [String: String] = { [:] }
    ) {
        let limit = effectiveLevel(logger.ownLevel)
        guard level != .none, limit != .none, level <= limit else { return }
        let entry = Entry(level: level, category: logger.category, message: message(), metadata: metadata(), namespace: logger.namespace)
        entries.withLock { $0.append(entry) }
    }
}

/// One category's view of a ``RecordingLoggingPlugin``, with a level of its own once one is set.
private struct RecordingLogger: Logger {
    let category: String
    let namespace: String?
    var ownLevel: Amplify.LogLevel?
    let plugin: RecordingLoggingPlugin

    var logLevel: Amplify.LogLevel {
        get { plugin.effectiveLevel(ownLevel) }
        set { ownLevel = newValue }
    }

    func error(_ message: @autoclosure () -> String) { plugin.record(.error, from: self, message) }
    func error(error: any Error) { plugin.record(.error, from: self) { "\(error)" } }
    func warn(_ message: @autoclosure () -> String) { plugin.record(.warn, from: self, message) }
    func info(_ message: @autoclosure () -> String) { plugin.record(.info, from: self, message) }
    func debug(_ message: @autoclosure () -> String) { plugin.record(.debug, from: self, message) }
    func verbose(_ message: @autoclosure () -> String) { plugin.record(.verbose, from: self, message) }
    func log(level: Amplify.LogLevel, _ message: @autoclosure () -> String, metadata: @autoclosure () -> [String: String]) {
        plugin.record(level, from: self, message, metadata: metadata)
    }
}
