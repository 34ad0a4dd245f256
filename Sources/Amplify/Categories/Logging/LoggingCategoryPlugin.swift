/// A Logging plugin: where `Amplify.Logging` sends messages.
///
/// Its requirements are amplify-swift's (``Plugin`` and ``LoggingCategoryClientBehavior``) plus
/// ``logLevel``, which has a default; ``LoggingCategoryClientBehavior/logger(forCategory:forNamespace:)``
/// has one too, so a plugin written for amplify-swift's protocol, or for this package's before
/// that requirement came, conforms as it is. Like every plugin here it is a `Sendable` class,
/// and its loggers are `Sendable`.
public protocol LoggingCategoryPlugin: Plugin, LoggingCategoryClientBehavior {
    /// The level loggers follow unless they have one of their own: what `Amplify.Logging.logLevel`
    /// reads and sets.
    var logLevel: Amplify.LogLevel { get set }
}

extension LoggingCategoryPlugin {
    /// Always `.logging`.
    public var categoryType: CategoryType { .logging }
}

extension LoggingCategoryPlugin {
    /// The default, for plugins that keep no level of their own (amplify-swift's plugins read
    /// `Amplify.Logging.logLevel` instead): one level that `Amplify.Logging` keeps for them,
    /// `$AMPLIFY_LOG_LEVEL` or else `.error` to start with and again after `Amplify.reset()`.
    /// Reading `Amplify.Logging.logLevel` from the plugin's loggers is therefore safe.
    public var logLevel: Amplify.LogLevel {
        get { LoggingCategory.levelForPlugins.withLock { $0 } }
        set { LoggingCategory.levelForPlugins.withLock { $0 = newValue } }
    }
}

extension LoggingCategoryPlugin {
    /// The default, for plugins that do not implement it: the category's logger,
    /// ``LoggingCategoryClientBehavior/logger(forCategory:)``, so the message keeps the category's
    /// level and the namespace is not shown.
    public func logger(forCategory category: String, forNamespace namespace: String) -> any Logger {
        logger(forCategory: category)
    }
}
