import AmplifyConcurrency
import Foundation

/// `Amplify.Logging`: loggers for categories and application code. Works before `configure`,
/// with a ``SwiftLogLoggingPlugin`` at `.error` (or `$AMPLIFY_LOG_LEVEL`), so messages go to
/// the handler `LoggingSystem.bootstrap` chose.
///
/// It is a ``Logger`` itself, as in amplify-swift: `Amplify.Logging.info("…")` writes through
/// the plugin's ``default`` logger. Every member may be called from any thread; loggers write on
/// the calling thread.
///
/// Logging holds one plugin at a time: adding one replaces the one before (amplify-swift keeps its
/// `AWSUnifiedLoggingPlugin` beside an added plugin and writes every message to both).
public final class LoggingCategory: LoggingCategoryClientBehavior, Sendable {
    private let slot = Locked<any LoggingCategoryPlugin>(SwiftLogLoggingPlugin())

    /// The level ``LoggingCategoryPlugin/logLevel``'s default keeps, for plugins that keep none.
    static let levelForPlugins = Locked(LoggingCategory.startingLevel)

    /// `$AMPLIFY_LOG_LEVEL` when it names a level, else `.error`.
    static var startingLevel: Amplify.LogLevel {
        ProcessInfo.processInfo.environment["AMPLIFY_LOG_LEVEL"].flatMap(Amplify.LogLevel.init(name:)) ?? .error
    }

    init() {}

    /// `.logging`.
    public let categoryType: CategoryType = .logging

    /// The plugin messages go to.
    public var plugin: any LoggingCategoryPlugin { slot.withLock { $0 } }

    /// The level loggers write up to unless they have one of their own: the plugin's
    /// ``LoggingCategoryPlugin/logLevel``. A message at a level above it is never built. Also the
    /// level of ``default`` and so of `Amplify.Logging.error("…")` and the other level methods.
    public var logLevel: Amplify.LogLevel {
        get { plugin.logLevel }
        set {
            plugin.logLevel = newValue
        }
    }

    /// The plugin's logger with no category.
    public var `default`: any Logger { plugin.default }

    /// The plugin's logger for `category`, which follows the Logging level (or the category's
    /// own, see ``SwiftLogLoggingPlugin/setLogLevel(_:forCategory:)``).
    public func logger(forCategory category: String) -> any Logger {
        plugin.logger(forCategory: category)
    }

    /// The plugin's logger for the category `category` names (its ``CategoryType/displayName``,
    /// "Auth", "Storage").
    public func logger(forCategory category: CategoryType) -> any Logger {
        plugin.logger(forCategory: category.displayName)
    }

    /// The plugin's logger for `category` with a level of its own, `logLevel`, which wins over
    /// the Logging level in either direction (see ``Logger/logLevel``).
    public func logger(forCategory category: String, logLevel: Amplify.LogLevel) -> any Logger {
        plugin.logger(forCategory: category, logLevel: logLevel)
    }

    /// The plugin's logger for a namespace.
    public func logger(forNamespace namespace: String) -> any Logger {
        plugin.logger(forNamespace: namespace)
    }

    /// The plugin's logger for `category` that also names `namespace`, with the category's level.
    public func logger(forCategory category: String, forNamespace namespace: String) -> any Logger {
        plugin.logger(forCategory: category, forNamespace: namespace)
    }

    /// Turns logging on again.
    public func enable() { plugin.enable() }
    /// Turns logging off: every logger of the plugin drops its messages, whatever its level.
    public func disable() { plugin.disable() }

    /// The plugin with `key`.
    /// - Throws: ``LoggingError/configuration(_:_:_:)`` if the Logging plugin has another key.
    public func getPlugin(for key: PluginKey) throws -> any LoggingCategoryPlugin {
        let current = plugin
        guard current.key == key else {
            throw LoggingError.configuration(
                "No plugin has been added for '\(key)'.",
                "Either add a plugin for '\(key)', or use the installed plugin, which has the key '\(current.key)'.")
        }
        return current
    }

    /// Makes `plugin` the sole Logging plugin (Logging holds one, as in amplify-swift).
    /// - Throws: ``LoggingError/configuration(_:_:_:)`` if its key is empty.
    public func add(plugin newPlugin: any LoggingCategoryPlugin) throws {
        guard !newPlugin.key.isEmpty else {
            throw LoggingError.configuration(
                "Plugin \(type(of: newPlugin)) has an empty `key`.",
                "Set the `key` property of \(type(of: newPlugin)): it names the plugin's block in the configuration file.")
        }
        slot.withLock { $0 = newPlugin }
    }

    /// If the plugin has `key`, goes back to the swift-log plugin (the removed one is reset in a
    /// task of its own); otherwise does nothing.
    public func removePlugin(for key: PluginKey) {
        let removed = slot.withLock { current -> (any LoggingCategoryPlugin)? in
            guard current.key == key else { return nil }
            defer { current = SwiftLogLoggingPlugin() }
            return current
        }
        if let removed { Task { await removed.reset() } }
    }

    /// Resets the plugin and goes back to the swift-log plugin; the level kept for plugins
    /// without one of their own starts again from `$AMPLIFY_LOG_LEVEL` or `.error`.
    public func reset() async {
        let current = plugin
        await current.reset()
        slot.withLock { $0 = SwiftLogLoggingPlugin() }
        Self.levelForPlugins.withLock { $0 = Self.startingLevel }
    }
}
