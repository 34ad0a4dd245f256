import Amplify
import AmplifyConcurrency
import AmplifyTestKit
import Testing

/// `logger(forCategory:forNamespace:)` on each plugin of this package. Plugin instances only.
@Suite("Loggers with a category and a namespace")
struct LoggingNamespaceTests {
    @Test("the swift-log plugin writes to the category's label at the category's level, the namespace as metadata")
    func swiftLog() throws {
        let logs = CapturedLogs()
        let plugin = SwiftLogLoggingPlugin(logLevel: .error, makeLogger: logs.makeLogger)
        plugin.setLogLevel(.info, forCategory: "Storage")
        let logger = plugin.logger(forCategory: "Storage", forNamespace: "Uploader")
        logger.info("started")
        logger.debug("above the category's level")
        logger.log(level: .warn, "slow", metadata: [LogMetadataKey.operation: "put"])
        logger.log(level: .warn, "renamed", metadata: [LogMetadataKey.namespace: "Chunker"])
        #expect(
            logs.records == [
                CapturedLogs.Record(label: "amplify.storage", level: .info, message: "started", metadata: ["namespace": "Uploader"]),
                CapturedLogs.Record(
                    label: "amplify.storage", level: .warning, message: "slow", metadata: ["namespace": "Uploader", "operation": "put"]),
                CapturedLogs.Record(label: "amplify.storage", level: .warning, message: "renamed", metadata: ["namespace": "Chunker"]),
            ])
    }

    @Test("the console plugin names category and namespace in each line")
    func console() {
        let lines = Locked<[String]>([])
        let plugin = ConsoleLoggingPlugin(logLevel: .info) { line in lines.withLock { $0.append(line) } }
        plugin.logger(forCategory: "Storage", forNamespace: "Uploader").info("started")
        plugin.logger(forCategory: "Storage", forNamespace: "Uploader").debug("above the level")
        #expect(lines.value == ["[INFO] Storage.Uploader: started"])
    }

    @Test("the recording plugin keeps the category and the namespace of each entry")
    func recording() {
        let plugin = RecordingLoggingPlugin(logLevel: .info)
        plugin.logger(forCategory: "Storage", forNamespace: "Uploader").info("started")
        plugin.logger(forCategory: "Storage").info("plain")
        #expect(plugin.messages.map(\.category) == ["Storage", "Storage"])
        #expect(plugin.messages.map(\.namespace) == ["Uploader", nil])
    }

    @Test("a plugin that does not implement it hands out its category's logger")
    func defaultImplementation() {
        let plugin = CategoryOnlyLoggingPlugin()
        plugin.logger(forCategory: "Storage", forNamespace: "Uploader").info("started")
        #expect(plugin.inner.messages.map(\.category) == ["Storage"])
        #expect(plugin.inner.messages.map(\.namespace) == [nil])
    }
}

/// A Logging plugin written before `logger(forCategory:forNamespace:)` was a requirement.
final class CategoryOnlyLoggingPlugin: LoggingCategoryPlugin {
    let inner = RecordingLoggingPlugin()
    var key: PluginKey { "categoryOnlyLoggingPlugin" }
    var logLevel: Amplify.LogLevel {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }
    func configure(using configuration: Any?) throws {}
    func reset() async {}
    var `default`: any Logger { inner.default }
    func logger(forCategory category: String, logLevel: Amplify.LogLevel) -> any Logger { inner.logger(forCategory: category, logLevel: logLevel) }
    func logger(forCategory category: String) -> any Logger { inner.logger(forCategory: category) }
    func logger(forNamespace namespace: String) -> any Logger { inner.logger(forNamespace: namespace) }
    func enable() { inner.enable() }
    func disable() { inner.disable() }
}
