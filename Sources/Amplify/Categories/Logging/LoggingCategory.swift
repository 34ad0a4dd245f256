import AmplifyConcurrency

/// `Amplify.Logging`: loggers for categories and application code. Works before `configure`,
/// with a ``SwiftLogLoggingPlugin`` at `.error` (or `$AMPLIFY_LOG_LEVEL`), so messages go to
/// the handler `LoggingSystem.bootstrap` chose.
public final class LoggingCategory: Sendable {
    private let slot = Locked<any LoggingCategoryPlugin>(SwiftLogLoggingPlugin())

    init() {}

    /// `.logging`.
    public let categoryType: CategoryType = .logging

    /// The plugin messages go to.
    public var plugin: any LoggingCategoryPlugin { slot.withLock { $0 } }

    /// The level loggers write up to.
    public var logLevel: Amplify.LogLevel {
        get { plugin.logLevel }
        set {
            plugin.logLevel = newValue
        }
    }

    /// The logger with no category.
    public var `default`: any Logger { plugin.default }

    /// A logger for `category`.
    public func logger(forCategory category: String) -> any Logger {
        plugin.logger(forCategory: category)
    }

    /// A logger for `category` that writes up to `logLevel`.
    public func logger(forCategory category: String, logLevel: Amplify.LogLevel) -> any Logger {
        plugin.logger(forCategory: category, logLevel: logLevel)
    }

    /// A logger for a namespace.
    public func logger(forNamespace namespace: String) -> any Logger {
        plugin.logger(forNamespace: namespace)
    }

    /// Turns logging on.
    public func enable() { plugin.enable() }
    /// Turns logging off.
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

    /// Resets the plugin and goes back to the swift-log plugin.
    public func reset() async {
        let current = plugin
        await current.reset()
        slot.withLock { $0 = SwiftLogLoggingPlugin() }
    }
}
