/// What `Amplify.Logging` offers, and what every Logging plugin provides: amplify-swift's
/// `LoggingCategoryClientBehavior`. Every member returns at once and may be called from any
/// thread; loggers write on the calling thread.
public protocol LoggingCategoryClientBehavior {
    /// The logger with no category, the one `Amplify.Logging.error("…")` and the other level
    /// methods of ``LoggingCategory`` write through. It follows the Logging level.
    var `default`: any Logger { get }

    /// A logger for `category` with a level of its own, `logLevel`, which wins over the
    /// category's and the plugin's (see ``Logger/logLevel``).
    func logger(forCategory category: String, logLevel: Amplify.LogLevel) -> any Logger

    /// A logger for `category` that follows the Logging level (the category's own, when the plugin
    /// keeps one).
    func logger(forCategory category: String) -> any Logger

    /// Turns logging on again after ``disable()``.
    func enable()

    /// Turns logging off: every logger, whatever its level, drops its messages until ``enable()``.
    func disable()

    /// A logger for `namespace`, a name of the application's choosing (amplify-swift added it to
    /// match Amplify Android); it follows the Logging level.
    func logger(forNamespace namespace: String) -> any Logger

    /// A logger for `category` that also names `namespace` (a type or a component inside the
    /// category), with the category's level. Plugins written with ``DefaultLogger`` pass their
    /// category and their type's name.
    func logger(forCategory category: String, forNamespace namespace: String) -> any Logger
}
