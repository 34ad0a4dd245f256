/// A Logging plugin: where `Amplify.Logging` sends messages.
public protocol LoggingCategoryPlugin: Plugin {
    /// The logger for messages with no category.
    var `default`: any Logger { get }
    /// The level new loggers start with, and the one `Amplify.Logging.logLevel` sets.
    var logLevel: Amplify.LogLevel { get set }
    /// A logger for `category`, writing up to `logLevel`.
    func logger(forCategory category: String, logLevel: Amplify.LogLevel) -> any Logger
    /// A logger for `category` at the plugin's level.
    func logger(forCategory category: String) -> any Logger
    /// A logger for a namespace (a finer grain than a category).
    func logger(forNamespace namespace: String) -> any Logger
    /// Turns logging on.
    func enable()
    /// Turns logging off: every logger drops its messages.
    func disable()
}

extension LoggingCategoryPlugin {
    /// Always `.logging`.
    public var categoryType: CategoryType { .logging }
}
