/// Gives a type a `log` property, amplify-swift's `DefaultLogger`: conform and write
/// `Self.log.debug("…")` or `log.error(error: error)`.
///
/// By default both properties are `Amplify.Logging.logger(forCategory:)` with the type's name
/// (`String(describing: Self.self)`) as the category, made afresh on each read so they follow the
/// plugin Amplify holds at that moment. Plugins usually implement `log` themselves to name their
/// category and their type as namespace:
///
/// ```swift
/// extension MyStoragePlugin: DefaultLogger {
///     static var log: any Logger {
///         Amplify.Logging.logger(forCategory: CategoryType.storage.displayName, forNamespace: String(describing: self))
///     }
///     var log: any Logger { Self.log }
/// }
/// ```
///
/// Both properties may be read from any thread; their loggers write on the calling thread.
public protocol DefaultLogger {
    /// The type's logger.
    static var log: any Logger { get }
    /// The logger of the instance's type.
    var log: any Logger { get }
}

extension DefaultLogger {
    /// The default: `Amplify.Logging.logger(forCategory:)` with the type's name as the category.
    public static var log: any Logger {
        Amplify.Logging.logger(forCategory: String(describing: self))
    }

    /// The default: the type's logger, `Self.log`, so an instance logs as its type does.
    public var log: any Logger {
        Self.log
    }
}
