import Amplify
import AmplifyConcurrency
import AmplifyTestKit
import Foundation
import Testing

/// A Logging plugin written only against amplify-swift's requirements, with its spellings
/// (`Logger`, `LogLevel`, `Error`): `Plugin` (key, configure, reset) and
/// `LoggingCategoryClientBehavior`. It keeps no level: its loggers read `Amplify.Logging.logLevel`
/// unless given one, as amplify-swift's own plugins do. Its one concession to Swift 6 is being a
/// `Sendable` class.
final class UpstreamShapedLoggingPlugin: LoggingCategoryPlugin {
    let lines = Locked<[String]>([])
    private let enabled = Locked(true)

    let key: String = "UpstreamShapedLoggingPlugin"

    func configure(using configuration: Any?) throws {}

    func reset() async { lines.withLock { $0.removeAll() } }

    var `default`: Logger { UpstreamShapedLogger(name: "Default", plugin: self) }

    func logger(forCategory category: String, logLevel: LogLevel) -> Logger {
        UpstreamShapedLogger(name: category, plugin: self, ownLevel: logLevel)
    }

    func logger(forCategory category: String) -> Logger { UpstreamShapedLogger(name: category, plugin: self) }

    func enable() { enabled.withLock { $0 = true } }

    func disable() { enabled.withLock { $0 = false } }

    func logger(forNamespace namespace: String) -> Logger { UpstreamShapedLogger(name: namespace, plugin: self) }

    func logger(forCategory category: String, forNamespace namespace: String) -> Logger {
        UpstreamShapedLogger(name: category + "/" + namespace, plugin: self)
    }

    fileprivate func write(_ level: LogLevel, _ name: String, _ limit: LogLevel, _ message: () -> String) {
        guard enabled.withLock({ $0 }), limit != .none, level <= limit else { return }
        let line = "\(level) \(name): \(message())"
        lines.withLock { $0.append(line) }
    }
}

extension UpstreamShapedLoggingPlugin: AmplifyVersionable {}

private struct UpstreamShapedLogger: Logger {
    let name: String
    let plugin: UpstreamShapedLoggingPlugin
    var ownLevel: LogLevel?

    var logLevel: LogLevel {
        get { ownLevel ?? Amplify.Logging.logLevel }
        set { ownLevel = newValue }
    }

    func error(_ message: @autoclosure () -> String) { plugin.write(.error, name, logLevel, message) }
    func error(error: Error) { plugin.write(.error, name, logLevel) { "\(error)" } }
    func warn(_ message: @autoclosure () -> String) { plugin.write(.warn, name, logLevel, message) }
    func info(_ message: @autoclosure () -> String) { plugin.write(.info, name, logLevel, message) }
    func debug(_ message: @autoclosure () -> String) { plugin.write(.debug, name, logLevel, message) }
    func verbose(_ message: @autoclosure () -> String) { plugin.write(.verbose, name, logLevel, message) }
}

extension AmplifyLifecycleTests {
    /// A third-party Logging plugin through `Amplify.Logging`: inside the serialized lifecycle suite.
    @Suite("A Logging plugin written for amplify-swift")
    struct LoggingThirdPartyPluginTests {
        /// The level Logging starts with: `$AMPLIFY_LOG_LEVEL` when the test runs with it, else `.error`.
        let startingLevel = ProcessInfo.processInfo.environment["AMPLIFY_LOG_LEVEL"].flatMap(LogLevel.init(name:)) ?? .error

        @Test("it conforms as written, is added, and Amplify.Logging's level methods and loggers reach it")
        func conformsAndReceives() async throws {
            await Amplify.reset()
            let plugin = UpstreamShapedLoggingPlugin()
            try Amplify.add(plugin: plugin)
            #expect(try Amplify.Logging.getPlugin(for: "UpstreamShapedLoggingPlugin") === plugin)
            Amplify.Logging.error("from the category")
            Amplify.Logging.error(error: LoggingError.configuration("an error value", "none"))
            Amplify.Logging.logger(forCategory: "Auth").error("from a category logger")
            Amplify.Logging.logger(forCategory: "Auth", forNamespace: "Signer").error("from a namespaced logger")
            Amplify.Logging.logger(forNamespace: "Jobs").error("from a namespace logger")
            Amplify.Logging.logger(forCategory: "Auth", logLevel: .debug).debug("from a logger with its own level")
            let lines = plugin.lines.value
            #expect(lines.contains("error Default: from the category"))
            #expect(lines.contains { $0.hasPrefix("error Default: ") && $0.contains("an error value") })
            #expect(lines.contains("error Auth: from a category logger"))
            #expect(lines.contains("error Auth/Signer: from a namespaced logger"))
            #expect(lines.contains("error Jobs: from a namespace logger"))
            #expect(lines.contains("debug Auth: from a logger with its own level"))
            Amplify.Logging.disable()
            Amplify.Logging.error("while disabled")
            #expect(!plugin.lines.value.contains("error Default: while disabled"))
            await Amplify.reset()
        }

        @Test("Amplify.Logging keeps the level for a plugin that keeps none; its loggers read it, and reset puts it back")
        func levelKeptForThePlugin() async throws {
            await Amplify.reset()
            let plugin = UpstreamShapedLoggingPlugin()
            try Amplify.add(plugin: plugin)
            #expect(Amplify.Logging.logLevel == startingLevel)
            Amplify.Logging.logLevel = .info
            #expect(plugin.logLevel == .info)
            #expect(Amplify.Logging.default.logLevel == .info)
            Amplify.Logging.info("at info")
            Amplify.Logging.debug("at debug")
            #expect(plugin.lines.value.filter { $0.hasPrefix("info Default") || $0.hasPrefix("debug Default") } == ["info Default: at info"])
            await Amplify.reset()
            try Amplify.add(plugin: UpstreamShapedLoggingPlugin())
            #expect(Amplify.Logging.logLevel == startingLevel)
            await Amplify.reset()
        }

        @Test("a class that only declares AmplifyVersionable reports Not Available; this package's core plugins report Amplify.version")
        func versions() {
            #expect(UpstreamShapedLoggingPlugin().version == "Not Available")
            #expect(!Amplify.version.isEmpty)
            let plugins: [any AmplifyVersionable] = [SwiftLogLoggingPlugin(), ConsoleLoggingPlugin(), DefaultHubPlugin()]
            #expect(plugins.map(\.version) == Array(repeating: Amplify.version, count: 3))
        }
    }
}
