/// The Logging category's own logger, as in amplify-swift: category "Logging", namespace
/// "LoggingCategory" (`Amplify.Logging.log`).
extension LoggingCategory: DefaultLogger {
    /// `Amplify.Logging.logger(forCategory: "Logging", forNamespace: "LoggingCategory")`.
    public static var log: any Logger {
        Amplify.Logging.logger(forCategory: CategoryType.logging.displayName, forNamespace: String(describing: self))
    }

    /// The category's logger, `LoggingCategory.log`.
    public var log: any Logger {
        Self.log
    }
}
