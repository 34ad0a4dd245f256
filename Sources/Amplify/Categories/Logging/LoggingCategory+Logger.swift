/// `Amplify.Logging` as a ``Logger``, as in amplify-swift: each level method writes through the
/// current plugin's ``LoggingCategory/default`` logger (category "Amplify"), so it follows
/// ``LoggingCategory/logLevel`` (or a level the plugin keeps for "Amplify"), is silenced by
/// ``LoggingCategory/disable()``, and builds its message only when the level lets it through.
/// Each call writes on the calling thread before it returns.
extension LoggingCategory: Logger {
    /// Logs `message` at `.error` through the default logger.
    public func error(_ message: @autoclosure () -> String) {
        plugin.default.error(message())
    }

    /// Logs `error` at `.error` through the default logger (an ``AmplifyError`` with its
    /// description, suggestion and underlying error, where the plugin writes them).
    public func error(error: any Error) {
        plugin.default.error(error: error)
    }

    /// Logs `message` at `.warn` through the default logger.
    public func warn(_ message: @autoclosure () -> String) {
        plugin.default.warn(message())
    }

    /// Logs `message` at `.info` through the default logger.
    public func info(_ message: @autoclosure () -> String) {
        plugin.default.info(message())
    }

    /// Logs `message` at `.debug` through the default logger.
    public func debug(_ message: @autoclosure () -> String) {
        plugin.default.debug(message())
    }

    /// Logs `message` at `.verbose` through the default logger.
    public func verbose(_ message: @autoclosure () -> String) {
        plugin.default.verbose(message())
    }

    /// Logs `message` at `level` with `metadata` (keys in ``LogMetadataKey``) through the default
    /// logger, which keeps the metadata apart when the plugin does (``SwiftLogLoggingPlugin``).
    public func log(level: Amplify.LogLevel, _ message: @autoclosure () -> String, metadata: @autoclosure () -> [String: String]) {
        plugin.default.log(level: level, message(), metadata: metadata())
    }
}
