import Amplify
import AmplifyConcurrency
import AmplifyTestKit
import Foundation
import Logging
import Testing

extension AmplifyLifecycleTests {
    /// `Amplify.Logging` used as amplify-swift's `Logger`. These tests change the process-wide
    /// Logging plugin, so they sit inside the serialized lifecycle suite.
    @Suite("Amplify.Logging as a Logger")
    struct LoggingCategoryLoggerTests {
        /// What `plugin` recorded from the default logger (category "Amplify"), other suites'
        /// messages left out.
        func fromDefault(_ plugin: RecordingLoggingPlugin) -> [RecordingLoggingPlugin.Entry] {
            plugin.messages.filter { $0.category == "Amplify" && $0.message.hasPrefix("through the category") }
        }

        @Test("each level method of Amplify.Logging reaches the plugin with that level, in the default logger's category")
        func eachLevelReachesThePlugin() async throws {
            await Amplify.reset()
            let plugin = RecordingLoggingPlugin(logLevel: .verbose)
            try Amplify.add(plugin: plugin)
            Amplify.Logging.error("through the category: error")
            Amplify.Logging.warn("through the category: warn")
            Amplify.Logging.info("through the category: info")
            Amplify.Logging.debug("through the category: debug")
            Amplify.Logging.verbose("through the category: verbose")
            let entries = fromDefault(plugin)
            #expect(entries.map(\.level) == [.error, .warn, .info, .debug, .verbose])
            #expect(entries.map(\.message) == ["error", "warn", "info", "debug", "verbose"].map { "through the category: \($0)" })
            #expect(entries.allSatisfy { $0.namespace == nil })
            await Amplify.reset()
        }

        @Test("Amplify.Logging.logLevel filters its level methods, and a message above it is never built")
        func levelFiltersTheCategory() async throws {
            await Amplify.reset()
            let plugin = RecordingLoggingPlugin(logLevel: .verbose)
            try Amplify.add(plugin: plugin)
            Amplify.Logging.logLevel = .warn
            #expect(plugin.logLevel == .warn)
            #expect(Amplify.Logging.logLevel == .warn)
            let built = Counter()
            func message(_ level: String) -> String {
                built.increment()
                return "through the category: \(level)"
            }
            Amplify.Logging.error(message("error"))
            Amplify.Logging.warn(message("warn"))
            Amplify.Logging.info(message("info"))
            Amplify.Logging.debug(message("debug"))
            Amplify.Logging.verbose(message("verbose"))
            #expect(fromDefault(plugin).map(\.level) == [.error, .warn])
            #expect(built.value == 2)
            Amplify.Logging.logLevel = .none
            Amplify.Logging.error(message("error at none"))
            #expect(fromDefault(plugin).count == 2)
            #expect(built.value == 2)
            await Amplify.reset()
        }

        @Test("Amplify.Logging.error(error:) logs the error at .error through the default logger")
        func errorValue() async throws {
            await Amplify.reset()
            let plugin = RecordingLoggingPlugin(logLevel: .error)
            try Amplify.add(plugin: plugin)
            let error = LoggingError.configuration("through the category: no such plugin", "Add it.")
            Amplify.Logging.error(error: error)
            let entries = fromDefault(plugin)
            #expect(entries.count == 1)
            #expect(entries.first?.level == .error)
            #expect(entries.first?.message.contains("through the category: no such plugin") == true)
            await Amplify.reset()
        }

        @Test("Amplify.Logging.disable() silences its level methods until enable()")
        func disableAndEnable() async throws {
            await Amplify.reset()
            let plugin = RecordingLoggingPlugin(logLevel: .verbose)
            try Amplify.add(plugin: plugin)
            Amplify.Logging.disable()
            Amplify.Logging.error("through the category: while disabled")
            #expect(Amplify.Logging.default.logLevel == .none)
            Amplify.Logging.enable()
            Amplify.Logging.error("through the category: enabled again")
            #expect(fromDefault(plugin).map(\.message) == ["through the category: enabled again"])
            await Amplify.reset()
        }

        @Test(
            "through the swift-log plugin, Amplify.Logging writes to label amplify, follows the level set for category Amplify, and keeps metadata apart"
        )
        func throughSwiftLog() async throws {
            await Amplify.reset()
            let logs = CapturedLogs()
            let plugin = SwiftLogLoggingPlugin(logLevel: .error, makeLogger: logs.makeLogger)
            try Amplify.add(plugin: plugin)
            Amplify.Logging.info("through the category: info at error")
            plugin.setLogLevel(.debug, forCategory: "Amplify")
            Amplify.Logging.debug("through the category: debug")
            Amplify.Logging.verbose("through the category: verbose")
            Amplify.Logging.warn("through the category: warn")
            Amplify.Logging.log(level: .info, "through the category: with metadata", metadata: [LogMetadataKey.operation: "report"])
            Amplify.Logging.error(error: LoggingError.configuration("through the category: an error", "Fix it."))
            let records = logs.records.filter { $0.label == "amplify" && $0.message.contains("through the category") }
            #expect(records.map(\.level) == [.debug, .warning, .info, .error])
            #expect(
                records[2]
                    == CapturedLogs.Record(
                        label: "amplify", level: .info, message: "through the category: with metadata", metadata: ["operation": "report"]))
            #expect(records[3].message.contains("through the category: an error"))
            await Amplify.reset()
        }

        @Test("a configuration block for amplify-swift's AWSUnifiedLoggingPlugin is skipped with a finding, and the swift-log plugin stays")
        func unifiedLoggingBlock() async throws {
            await Amplify.reset()
            try Amplify.configure(AmplifyConfiguration(logging: CategoryConfiguration(plugins: ["AWSUnifiedLoggingPlugin": [:]])))
            #expect(Amplify.Logging.plugin is SwiftLogLoggingPlugin)
            #expect(Amplify.configurationFindings.map(\.path) == ["logging.plugins.AWSUnifiedLoggingPlugin"])
            #expect(throws: LoggingError.self) { try Amplify.Logging.getPlugin(for: "AWSUnifiedLoggingPlugin") }
            await Amplify.reset()
        }

        @Test(
            "logger(forCategory:forNamespace:), logger(forCategory: CategoryType) and Amplify.Logging.log reach the plugin with their category and namespace"
        )
        func categoryAndNamespace() async throws {
            await Amplify.reset()
            let plugin = RecordingLoggingPlugin(logLevel: .info)
            try Amplify.add(plugin: plugin)
            Amplify.Logging.logger(forCategory: "Storage", forNamespace: "Uploader").info("namespaced")
            Amplify.Logging.logger(forCategory: "Storage", forNamespace: "Uploader").debug("namespaced, above the level")
            Amplify.Logging.logger(forCategory: .analytics).info("by category type")
            Amplify.Logging.log.info("the category's own")
            let entries = plugin.messages.filter {
                ["namespaced", "namespaced, above the level", "by category type", "the category's own"].contains($0.message)
            }
            #expect(entries.map(\.category) == ["Storage", "Analytics", "Logging"])
            #expect(entries.map(\.namespace) == ["Uploader", nil, "LoggingCategory"])
            #expect(entries.map(\.level) == [.info, .info, .info])
            await Amplify.reset()
        }
    }
}
