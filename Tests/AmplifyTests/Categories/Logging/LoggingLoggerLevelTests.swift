import Amplify
import AmplifyConcurrency
import AmplifyTestKit
import Testing

/// A Logging plugin of this package with a way to read what it wrote, as message texts.
struct LoggingBackend: Sendable, CustomTestStringConvertible {
    let name: String
    let make: @Sendable (_ level: Amplify.LogLevel) -> (plugin: any LoggingCategoryPlugin, written: @Sendable () -> [String])

    var testDescription: String { name }

    static let all: [LoggingBackend] = [
        LoggingBackend(name: "swift-log") { level in
            let logs = CapturedLogs()
            return (SwiftLogLoggingPlugin(logLevel: level, makeLogger: logs.makeLogger), { logs.records.map(\.message) })
        },
        LoggingBackend(name: "console") { level in
            let lines = Locked<[String]>([])
            let plugin = ConsoleLoggingPlugin(logLevel: level) { line in lines.withLock { $0.append(line) } }
            // "[LEVEL] name: message" → "message"
            return (plugin, { lines.value.map { String($0.split(separator: ": ", maxSplits: 1).last ?? "") } })
        },
        LoggingBackend(name: "recording") { level in
            let plugin = RecordingLoggingPlugin(logLevel: level)
            return (plugin, { plugin.messages.map(\.message) })
        },
    ]
}

/// `Logger.logLevel` is settable, as in amplify-swift: a logger's own level wins over the
/// plugin's (and a category's) in either direction. Plugin instances only; no global state.
@Suite("A logger's own level")
struct LoggingLoggerLevelTests {
    @Test("setting a logger's logLevel lets it write above the plugin's level", arguments: LoggingBackend.all)
    func raisesAbovePlugin(backend: LoggingBackend) {
        let (plugin, written) = backend.make(.error)
        var logger = plugin.logger(forCategory: "Jobs")
        logger.debug("before")
        #expect(logger.logLevel == .error)
        logger.logLevel = .debug
        #expect(logger.logLevel == .debug)
        logger.debug("after")
        logger.verbose("above its own level")
        #expect(written() == ["after"])
    }

    @Test("setting a logger's logLevel quiets it below the plugin's level", arguments: LoggingBackend.all)
    func lowersBelowPlugin(backend: LoggingBackend) {
        let (plugin, written) = backend.make(.verbose)
        var logger = plugin.logger(forCategory: "Jobs")
        logger.logLevel = .warn
        logger.info("dropped")
        logger.warn("kept")
        #expect(written() == ["kept"])
    }

    @Test("setting one logger's level leaves the plugin and other loggers of the category on the plugin's level", arguments: LoggingBackend.all)
    func onlyThatLogger(backend: LoggingBackend) {
        let (plugin, written) = backend.make(.error)
        var chatty = plugin.logger(forCategory: "Jobs")
        chatty.logLevel = .info
        let other = plugin.logger(forCategory: "Jobs")
        other.info("other")
        chatty.info("chatty")
        #expect(plugin.logLevel == .error)
        #expect(other.logLevel == .error)
        #expect(written() == ["chatty"])
    }

    @Test("logger(forCategory:logLevel:) gives a level of its own that wins over the plugin's in either direction", arguments: LoggingBackend.all)
    func madeWithALevel(backend: LoggingBackend) {
        let (plugin, written) = backend.make(.warn)
        plugin.logger(forCategory: "Jobs", logLevel: .debug).debug("raised")
        plugin.logger(forCategory: "Jobs", logLevel: .error).warn("lowered")
        #expect(written() == ["raised"])
    }

    @Test("disable() silences a logger with a level of its own, whose logLevel then reads none", arguments: LoggingBackend.all)
    func disableWins(backend: LoggingBackend) {
        let (plugin, written) = backend.make(.error)
        var logger = plugin.logger(forCategory: "Jobs")
        logger.logLevel = .verbose
        plugin.disable()
        logger.error("while disabled")
        #expect(logger.logLevel == .none)
        plugin.enable()
        logger.verbose("enabled again")
        #expect(written() == ["enabled again"])
    }

    @Test("a logger's own level wins over its category's level from the configuration")
    func ownLevelOverCategoryLevel() throws {
        let logs = CapturedLogs()
        let plugin = SwiftLogLoggingPlugin(logLevel: .verbose, makeLogger: logs.makeLogger)
        try plugin.configure(using: ["categoryLogLevel": ["Auth": "error", "Hub": "verbose"]] as JSONValue)
        var auth = plugin.logger(forCategory: "Auth")
        auth.info("auth at its category's level")
        auth.logLevel = .info
        auth.info("auth at its own level")
        var hub = plugin.logger(forCategory: "Hub")
        hub.logLevel = .warn
        hub.info("hub below its own level")
        #expect(logs.records.map(\.message) == ["auth at its own level"])
    }
}
