/// Writes log messages for one category or namespace. Safe from any thread.
public protocol Logger: Sendable {
    /// The most verbose level this logger writes.
    var logLevel: Amplify.LogLevel { get }
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
}
