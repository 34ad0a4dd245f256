import Amplify
import AmplifyTestKit
import Testing

/// A type that takes `DefaultLogger`'s defaults.
private struct ReportBuilder: DefaultLogger {}

/// A plugin-like type that names its category and itself, as amplify-swift's plugins do.
private final class ThumbnailStore: DefaultLogger {
    static var log: any Logger {
        Amplify.Logging.logger(forCategory: CategoryType.storage.displayName, forNamespace: String(describing: self))
    }

    var log: any Logger { Self.log }
}

extension AmplifyLifecycleTests {
    /// `DefaultLogger` goes through `Amplify.Logging`, so these tests sit inside the serialized
    /// lifecycle suite.
    @Suite("DefaultLogger")
    struct LoggingDefaultLoggerTests {
        @Test("a type's static log is a logger whose category is the type's name")
        func staticLog() async throws {
            await Amplify.reset()
            let plugin = RecordingLoggingPlugin(logLevel: .verbose)
            try Amplify.add(plugin: plugin)
            ReportBuilder.log.debug("from the type")
            let entries = plugin.messages.filter { $0.message == "from the type" }
            #expect(entries.map(\.category) == ["ReportBuilder"])
            #expect(entries.map(\.level) == [.debug])
            await Amplify.reset()
        }

        @Test("an instance's log logs as its type does")
        func instanceLog() async throws {
            await Amplify.reset()
            let plugin = RecordingLoggingPlugin(logLevel: .verbose)
            try Amplify.add(plugin: plugin)
            ReportBuilder().log.warn("from an instance")
            let entries = plugin.messages.filter { $0.message == "from an instance" }
            #expect(entries.map(\.category) == ["ReportBuilder"])
            #expect(entries.map(\.level) == [.warn])
            await Amplify.reset()
        }

        @Test("DefaultLogger's loggers follow Amplify.Logging.logLevel and the plugin Amplify holds when they are read")
        func followsTheCategory() async throws {
            await Amplify.reset()
            let first = RecordingLoggingPlugin(logLevel: .verbose)
            try Amplify.add(plugin: first)
            Amplify.Logging.logLevel = .warn
            ReportBuilder.log.info("above the level")
            ReportBuilder.log.warn("to the first plugin")
            let second = RecordingLoggingPlugin(logLevel: .verbose)
            try Amplify.add(plugin: second)
            ReportBuilder().log.info("to the second plugin")
            #expect(first.messages.filter { $0.category == "ReportBuilder" }.map(\.message) == ["to the first plugin"])
            #expect(second.messages.filter { $0.category == "ReportBuilder" }.map(\.message) == ["to the second plugin"])
            await Amplify.reset()
        }

        @Test("a type that implements log with its category and its name as namespace logs through them, statically and per instance")
        func implementedLog() async throws {
            await Amplify.reset()
            let plugin = RecordingLoggingPlugin(logLevel: .verbose)
            try Amplify.add(plugin: plugin)
            ThumbnailStore.log.info("static thumbnail")
            ThumbnailStore().log.error("instance thumbnail")
            let entries = plugin.messages.filter { $0.message.hasSuffix("thumbnail") }
            #expect(entries.map(\.category) == ["Storage", "Storage"])
            #expect(entries.map(\.namespace) == ["ThumbnailStore", "ThumbnailStore"])
            await Amplify.reset()
        }
    }
}
