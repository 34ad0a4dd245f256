import AmplifyConcurrency
import Foundation

/// A Logging plugin that writes one line per message on standard error,
/// `[LEVEL] category: message (key=value, ...)`, without swift-log: for tools and scripts that
/// want plain lines. Messages are built lazily, only when their level is enabled. (The plugin
/// that is there from the start is ``SwiftLogLoggingPlugin``; a configuration block for this
/// one, or `Amplify.add(plugin: ConsoleLoggingPlugin())`, replaces it.)
///
/// Configuration block (optional), under `logging.plugins.consoleLoggingPlugin`:
/// `{"logLevel": "info"}` (error, warn, info, debug, verbose or none). `$AMPLIFY_LOG_LEVEL`
/// overrides it.
public final class ConsoleLoggingPlugin: LoggingCategoryPlugin {
    /// The plugin's key in the configuration file.
    public static let pluginKey: PluginKey = "consoleLoggingPlugin"

    private struct State {
        var level: Amplify.LogLevel
        var enabled = true
    }

    private let state: Locked<State>
    private let output: @Sendable (String) -> Void

    /// A console logger at `logLevel` (default: `$AMPLIFY_LOG_LEVEL`, else `.error`), writing to
    /// `output` (default: standard error).
    public init(logLevel: Amplify.LogLevel? = nil, output: (@Sendable (String) -> Void)? = nil) {
        let fromEnvironment = ProcessInfo.processInfo.environment["AMPLIFY_LOG_LEVEL"].flatMap(Amplify.LogLevel.init(name:))
        state = Locked(State(level: logLevel ?? fromEnvironment ?? .error))
        self.output = output ?? { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }

    /// `"consoleLoggingPlugin"`.
    public var key: PluginKey { Self.pluginKey }

    /// The level loggers write up to.
    public var logLevel: Amplify.LogLevel {
        get { state.withLock { $0.level } }
        set { state.withLock { $0.level = newValue } }
    }

    /// Reads `logLevel`.
    /// - Throws: ``ConfigurationValueError`` if it is not one of the level names.
    public func configure(using configuration: Any?) throws {
        guard let json = configuration as? JSONValue, let name = try json.optionalString("logLevel") else { return }
        guard let level = Amplify.LogLevel(name: name) else {
            throw ConfigurationValueError(
                keyPath: "logLevel", expected: "one of error, warn, info, debug, verbose, none", found: .string(name))
        }
        if ProcessInfo.processInfo.environment["AMPLIFY_LOG_LEVEL"] == nil { logLevel = level }
    }

    /// Turns logging back on.
    public func reset() async { enable() }

    /// The logger with no category.
    public var `default`: any Logger { logger(forCategory: "Amplify") }

    /// A logger for `category` with a level of its own, `logLevel`, which wins over the plugin's
    /// in either direction (``disable()`` still silences it).
    public func logger(forCategory category: String, logLevel: Amplify.LogLevel) -> any Logger {
        ConsoleLogger(name: category, ownLevel: logLevel, plugin: self)
    }

    /// A logger for `category` that follows the plugin's level.
    public func logger(forCategory category: String) -> any Logger {
        ConsoleLogger(name: category, ownLevel: nil, plugin: self)
    }

    /// A logger for `namespace` that follows the plugin's level.
    public func logger(forNamespace namespace: String) -> any Logger {
        ConsoleLogger(name: namespace, ownLevel: nil, plugin: self)
    }

    /// A logger for `category` that follows the plugin's level and names `namespace` in each line:
    /// `[LEVEL] category.namespace: message`.
    public func logger(forCategory category: String, forNamespace namespace: String) -> any Logger {
        ConsoleLogger(name: category + "." + namespace, ownLevel: nil, plugin: self)
    }

    /// Turns logging on.
    public func enable() { state.withLock { $0.enabled = true } }
    /// Turns logging off.
    public func disable() { state.withLock { $0.enabled = false } }

    fileprivate func effectiveLevel(_ own: Amplify.LogLevel?) -> Amplify.LogLevel {
        state.withLock { state in
            guard state.enabled else { return .none }
            return own ?? state.level
        }
    }

    fileprivate func write(_ level: Amplify.LogLevel, _ name: String, _ message: String) {
        output("[\(String(describing: level).uppercased())] \(name): \(message)")
    }
}

/// One category's view of a ``ConsoleLoggingPlugin``, with a level of its own once one is set.
private struct ConsoleLogger: Logger {
    let name: String
    var ownLevel: Amplify.LogLevel?
    let plugin: ConsoleLoggingPlugin

    var logLevel: Amplify.LogLevel {
        get { plugin.effectiveLevel(ownLevel) }
        set { ownLevel = newValue }
    }

    private func log(_ level: Amplify.LogLevel, _ message: () -> String) {
        let enabled = logLevel
        guard enabled != .none, level <= enabled else { return }
        plugin.write(level, name, message())
    }

    func error(_ message: @autoclosure () -> String) { log(.error, message) }
    func error(error: any Error) {
        log(.error) { (error as? any AmplifyError)?.debugDescription ?? String(describing: error) }
    }
    func warn(_ message: @autoclosure () -> String) { log(.warn, message) }
    func info(_ message: @autoclosure () -> String) { log(.info, message) }
    func debug(_ message: @autoclosure () -> String) { log(.debug, message) }
    func verbose(_ message: @autoclosure () -> String) { log(.verbose, message) }
}
