import AmplifyConcurrency
import Foundation
import Logging

/// The Logging plugin that is there from the start: every Amplify log message goes to a
/// swift-log `Logger` labelled `amplify.<category>` (`amplify.auth`, `amplify.hub`; `amplify`
/// for the default logger), with the message's metadata (``LogMetadataKey``: plugin, operation,
/// request id) as swift-log metadata. Where the messages end up is the application's choice,
/// made once with `LoggingSystem.bootstrap` (swift-log's default writes to standard error).
///
/// Two levels apply, as with any swift-log library: Amplify's level (a logger's own level, else
/// its category's level from the configuration, else ``logLevel``) decides which messages Amplify
/// produces, as in amplify-swift; the handler's own `logLevel` then decides which of them it
/// writes. Amplify's level is `$AMPLIFY_LOG_LEVEL`, else the configuration's `logLevel`, else
/// `.error`. Levels map to swift-log's as error → `.error`, warn → `.warning`, info → `.info`,
/// debug → `.debug`, verbose → `.trace`.
///
/// Configuration block (optional), under `logging.plugins.swiftLogLoggingPlugin`:
/// `{"logLevel": "info", "categoryLogLevel": {"Auth": "debug", "Hub": "warn"}}` (levels: error,
/// warn, info, debug, verbose or none). Messages are built only when Amplify's level enables
/// them.
public final class SwiftLogLoggingPlugin: LoggingCategoryPlugin {
    /// The plugin's key in the configuration file.
    public static let pluginKey: PluginKey = "swiftLogLoggingPlugin"

    private struct State {
        var level: Amplify.LogLevel
        var categoryLevels: [String: Amplify.LogLevel] = [:]
        var enabled = true
    }

    private let state: Locked<State>
    private let makeLogger: @Sendable (String) -> Logging.Logger
    private let levelFromEnvironment: Amplify.LogLevel?

    /// A plugin at `logLevel` (default: `$AMPLIFY_LOG_LEVEL`, else `.error`) whose loggers come
    /// from `makeLogger` (called with the label for each message Amplify's level lets through;
    /// default: `Logger(label:)`, so `LoggingSystem`'s handler).
    public init(logLevel: Amplify.LogLevel? = nil, makeLogger: (@Sendable (_ label: String) -> Logging.Logger)? = nil) {
        levelFromEnvironment = ProcessInfo.processInfo.environment["AMPLIFY_LOG_LEVEL"].flatMap(Amplify.LogLevel.init(name:))
        state = Locked(State(level: logLevel ?? levelFromEnvironment ?? .error))
        self.makeLogger = makeLogger ?? { label in Logging.Logger(label: label) }
    }

    /// `"swiftLogLoggingPlugin"`.
    public var key: PluginKey { Self.pluginKey }

    /// The level loggers write up to (a category's own level, when it has one, wins).
    public var logLevel: Amplify.LogLevel {
        get { state.withLock { $0.level } }
        set { state.withLock { $0.level = newValue } }
    }

    /// The level set for `category` alone, if any.
    public func logLevel(forCategory category: String) -> Amplify.LogLevel? {
        state.withLock { $0.categoryLevels[category] }
    }

    /// Sets (or, with `nil`, clears) the level of `category`'s loggers, whatever ``logLevel`` is.
    public func setLogLevel(_ level: Amplify.LogLevel?, forCategory category: String) {
        state.withLock { $0.categoryLevels[category] = level }
    }

    /// Reads `logLevel` and `categoryLogLevel`; `$AMPLIFY_LOG_LEVEL`, when set, wins over
    /// `logLevel`.
    /// - Throws: ``ConfigurationValueError`` for a level that is not one of the names.
    public func configure(using configuration: Any?) throws {
        guard let json = configuration as? JSONValue else { return }
        if let name = try json.optionalString("logLevel") {
            let level = try Self.level(name, keyPath: "logLevel")
            if levelFromEnvironment == nil { logLevel = level }
        }
        guard let categories = json.asObject?["categoryLogLevel"] else { return }
        guard let entries = categories.asObject else {
            throw ConfigurationValueError(keyPath: "categoryLogLevel", expected: "an object of category names and levels", found: categories)
        }
        var levels: [String: Amplify.LogLevel] = [:]
        for (category, value) in entries {
            guard let name = value.stringValue else {
                throw ConfigurationValueError(
                    keyPath: "categoryLogLevel.\(category)", expected: "one of error, warn, info, debug, verbose, none", found: value)
            }
            levels[category] = try Self.level(name, keyPath: "categoryLogLevel.\(category)")
        }
        state.withLock { $0.categoryLevels.merge(levels) { _, new in new } }
    }

    /// Turns logging back on.
    public func reset() async { enable() }

    /// The logger with no category (label `amplify`).
    public var `default`: any Logger { logger(forCategory: "Amplify") }

    /// A logger for `category` with a level of its own, `logLevel`, which wins over the
    /// category's and the plugin's level in either direction (``disable()`` still silences it).
    public func logger(forCategory category: String, logLevel: Amplify.LogLevel) -> any Logger {
        SwiftLogLogger(category: category, namespace: nil, ownLevel: logLevel, plugin: self)
    }

    /// A logger for `category` that follows the category's own level, else the plugin's.
    public func logger(forCategory category: String) -> any Logger {
        SwiftLogLogger(category: category, namespace: nil, ownLevel: nil, plugin: self)
    }

    /// A logger for `namespace` (label `amplify.<namespace>`) that follows the plugin's level.
    public func logger(forNamespace namespace: String) -> any Logger {
        SwiftLogLogger(category: namespace, namespace: nil, ownLevel: nil, plugin: self)
    }

    /// A logger for `category` (label `amplify.<category>`, the category's level) whose messages
    /// carry `namespace` as metadata under ``LogMetadataKey/namespace`` (a message's own
    /// metadata wins over it).
    public func logger(forCategory category: String, forNamespace namespace: String) -> any Logger {
        SwiftLogLogger(category: category, namespace: namespace, ownLevel: nil, plugin: self)
    }

    /// Turns logging on.
    public func enable() { state.withLock { $0.enabled = true } }
    /// Turns logging off.
    public func disable() { state.withLock { $0.enabled = false } }

    /// The swift-log label for `category`: `amplify.` and the name in lower case; `amplify` for
    /// the default logger.
    public static func label(forCategory category: String) -> String {
        category == "Amplify" ? "amplify" : "amplify." + category.lowercased()
    }

    /// swift-log's level for `level` (`nil` for `.none`).
    public static func swiftLogLevel(_ level: Amplify.LogLevel) -> Logging.Logger.Level? {
        switch level {
        case .error: .error
        case .warn: .warning
        case .info: .info
        case .debug: .debug
        case .verbose: .trace
        case .none: nil
        }
    }

    fileprivate func effectiveLevel(_ category: String, _ own: Amplify.LogLevel?) -> Amplify.LogLevel {
        state.withLock { state in
            guard state.enabled else { return .none }
            return own ?? state.categoryLevels[category] ?? state.level
        }
    }

    fileprivate func write(_ level: Amplify.LogLevel, category: String, _ message: String, metadata: [String: String]) {
        guard let swiftLevel = Self.swiftLogLevel(level) else { return }
        let logger = makeLogger(Self.label(forCategory: category))
        logger.log(
            level: swiftLevel, "\(message)", metadata: metadata.isEmpty ? nil : metadata.mapValues { .string($0) },
            source: "Amplify")
    }

    private static func level(_ name: String, keyPath: String) throws -> Amplify.LogLevel {
        guard let level = Amplify.LogLevel(name: name) else {
            throw ConfigurationValueError(keyPath: keyPath, expected: "one of error, warn, info, debug, verbose, none", found: .string(name))
        }
        return level
    }
}

/// One category's view of a ``SwiftLogLoggingPlugin``, with a level of its own once one is set.
private struct SwiftLogLogger: Logger {
    let category: String
    let namespace: String?
    var ownLevel: Amplify.LogLevel?
    let plugin: SwiftLogLoggingPlugin

    var logLevel: Amplify.LogLevel {
        get { plugin.effectiveLevel(category, ownLevel) }
        set { ownLevel = newValue }
    }

    func log(level: Amplify.LogLevel, _ message: @autoclosure () -> String, metadata: @autoclosure () -> [String: String]) {
        let enabled = logLevel
        guard level != .none, enabled != .none, level <= enabled else { return }
        var pairs = metadata()
        if let namespace, pairs[LogMetadataKey.namespace] == nil { pairs[LogMetadataKey.namespace] = namespace }
        plugin.write(level, category: category, message(), metadata: pairs)
    }

    func error(_ message: @autoclosure () -> String) { log(level: .error, message(), metadata: [:]) }
    func error(error: any Error) {
        log(level: .error, (error as? any AmplifyError)?.debugDescription ?? String(describing: error), metadata: [:])
    }
    func warn(_ message: @autoclosure () -> String) { log(level: .warn, message(), metadata: [:]) }
    func info(_ message: @autoclosure () -> String) { log(level: .info, message(), metadata: [:]) }
    func debug(_ message: @autoclosure () -> String) { log(level: .debug, message(), metadata: [:]) }
    func verbose(_ message: @autoclosure () -> String) { log(level: .verbose, message(), metadata: [:]) }
}
