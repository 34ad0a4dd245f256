/// Writes log messages for one category or namespace: amplify-swift's `Logger`. Safe from any
/// thread; each call writes before it returns (no callback runs later).
///
/// `Amplify.Logging` is a `Logger` too (its messages go to the plugin's default logger), and
/// ``DefaultLogger`` gives any type a `log` property that is one.
public protocol Logger: Sendable {
    /// The most verbose level this logger writes (`.none` while logging is disabled).
    ///
    /// Setting it gives this logger a level of its own, which wins over the category's and the
    /// plugin's level in either direction, as in amplify-swift: a logger set to `.debug` writes
    /// debug messages while `Amplify.Logging.logLevel` is `.error`, and one set to `.error` stays
    /// quiet at `.info`. It changes this logger value only (and copies made from it afterwards),
    /// not other loggers of the same category. `Amplify.Logging.disable()` still silences it.
    var logLevel: Amplify.LogLevel { get set }
    /// Logs at `.error`. The message is built only if the level is enabled.
    func error(_ message: @autoclosure () -> String)
    /// Logs an error value at `.error`.
    func error(error: any Error)
    /// Logs at `.warn`.
    func warn(_ message: @autoclosure () -> String)
    /// Logs at `.info`.
    func info(_ message: @autoclosure () -> String)
    /// Logs at `.debug`.
    func debug(_ message: @autoclosure () -> String)
    /// Logs at `.verbose`.
    func verbose(_ message: @autoclosure () -> String)
    /// Logs `message` at `level` with `metadata`: the plugin, the operation, the service's request
    /// id (keys in ``LogMetadataKey``). A structured backend (the default
    /// ``SwiftLogLoggingPlugin``) keeps the pairs apart from the text. The message and the
    /// metadata are built only if the level is enabled; `.none` logs nothing.
    func log(level: Amplify.LogLevel, _ message: @autoclosure () -> String, metadata: @autoclosure () -> [String: String])
}

/// The keys this package's plugins put in a log message's metadata.
public enum LogMetadataKey {
    /// The plugin's key (`localAuthPlugin`, `awsS3StoragePlugin`).
    public static let plugin = "plugin"
    /// The call or service operation (`signIn`, `InitiateAuth`, `PutObject`).
    public static let operation = "operation"
    /// The service's id for the request (`x-amzn-RequestId`, `x-amz-request-id`), when it sent one.
    public static let requestID = "request-id"
    /// The AWS service's signing name (`cognito-idp`, `s3`).
    public static let service = "service"
    /// The namespace of a logger made with `logger(forCategory:forNamespace:)` (often a type's
    /// name, as ``DefaultLogger`` implementations pass it).
    public static let namespace = "namespace"
}

extension Logger {
    /// The default, for loggers that keep no metadata apart: the message at its level, with the
    /// metadata appended as ` (key=value, ...)` in key order.
    public func log(level: Amplify.LogLevel, _ message: @autoclosure () -> String, metadata: @autoclosure () -> [String: String]) {
        func text() -> String {
            let pairs = metadata()
            guard !pairs.isEmpty else { return message() }
            return message() + " (" + pairs.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + ")"
        }
        switch level {
        case .error: error(text())
        case .warn: warn(text())
        case .info: info(text())
        case .debug: debug(text())
        case .verbose: verbose(text())
        case .none: break
        }
    }
}
