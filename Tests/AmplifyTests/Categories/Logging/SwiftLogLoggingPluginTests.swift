import Amplify
import AmplifyConcurrency
import AmplifyTestKit
import Foundation
import Logging
import Testing

@Suite("Logging through swift-log")
struct SwiftLogLoggingPluginTests {
    @Test("each message reaches a swift-log logger labelled amplify.<category>, with its metadata, at the matching swift-log level")
    func labelsMetadataAndLevels() {
        let logs = CapturedLogs()
        let plugin = SwiftLogLoggingPlugin(logLevel: .verbose, makeLogger: logs.makeLogger)
        let auth = plugin.logger(forCategory: "Auth")
        auth.error("e")
        auth.warn("w")
        auth.info("i")
        auth.debug("d")
        auth.verbose("v")
        auth.log(level: .debug, "signIn succeeded", metadata: [LogMetadataKey.plugin: "localAuthPlugin", LogMetadataKey.operation: "signIn"])
        plugin.default.info("from the default logger")
        plugin.logger(forNamespace: "MyApp.Jobs").info("from a namespace")
        #expect(logs.records.map(\.level) == [.error, .warning, .info, .debug, .trace, .debug, .info, .info])
        #expect(logs.records.prefix(6).allSatisfy { $0.label == "amplify.auth" })
        #expect(
            logs.records[5]
                == CapturedLogs.Record(
                    label: "amplify.auth", level: .debug, message: "signIn succeeded", metadata: ["plugin": "localAuthPlugin", "operation": "signIn"])
        )
        #expect(logs.records[6].label == "amplify")
        #expect(logs.records[7].label == "amplify.myapp.jobs")
    }

    @Test("Amplify's level decides what is produced: nothing above it is built or handed to swift-log")
    func amplifyLevelFilters() {
        let logs = CapturedLogs()
        let plugin = SwiftLogLoggingPlugin(logLevel: .warn, makeLogger: logs.makeLogger)
        let hub = plugin.logger(forCategory: "Hub")
        var built = 0
        func expensive() -> String {
            built += 1
            return "built"
        }
        hub.error("kept")
        hub.warn("kept too")
        hub.info(expensive())
        hub.log(level: .debug, expensive(), metadata: ["k": expensive()])
        #expect(logs.records.map(\.message) == ["kept", "kept too"])
        #expect(built == 0)
        plugin.logLevel = .none
        hub.error("dropped")
        #expect(logs.records.count == 2)
    }

    @Test("a category's own level wins over the plugin's; a logger made with a level of its own follows that level; disable drops everything")
    func perCategoryLevels() throws {
        let logs = CapturedLogs()
        let plugin = SwiftLogLoggingPlugin(logLevel: .error, makeLogger: logs.makeLogger)
        try plugin.configure(using: ["categoryLogLevel": ["Auth": "debug", "Hub": "none"]] as JSONValue)
        plugin.logger(forCategory: "Auth").debug("auth debug")
        plugin.logger(forCategory: "Hub").error("hub error")
        plugin.logger(forCategory: "Storage").info("storage info")
        plugin.logger(forCategory: "Auth", logLevel: .info).debug("own level info, debug")
        plugin.logger(forCategory: "Auth", logLevel: .info).info("own level info, info")
        #expect(logs.records.map(\.message) == ["auth debug", "own level info, info"])
        #expect(plugin.logLevel(forCategory: "Auth") == .debug)
        plugin.setLogLevel(nil, forCategory: "Auth")
        plugin.logger(forCategory: "Auth").debug("back to the plugin's level")
        plugin.disable()
        plugin.logger(forCategory: "Storage").error("while disabled")
        plugin.enable()
        plugin.logger(forCategory: "Storage").error("enabled again")
        #expect(logs.records.map(\.message) == ["auth debug", "own level info, info", "enabled again"])
    }

    @Test("the configuration sets logLevel and categoryLogLevel; a wrong level names its key")
    func configuration() throws {
        let plugin = SwiftLogLoggingPlugin(logLevel: .error)
        try plugin.configure(using: ["logLevel": "info"] as JSONValue)
        // $AMPLIFY_LOG_LEVEL, when the test runs with it, wins over the file.
        if ProcessInfo.processInfo.environment["AMPLIFY_LOG_LEVEL"] == nil { #expect(plugin.logLevel == .info) }
        #expect(throws: ConfigurationValueError.self) { try plugin.configure(using: ["logLevel": "loud"] as JSONValue) }
        do {
            try plugin.configure(using: ["categoryLogLevel": ["Auth": "chatty"]] as JSONValue)
            Issue.record("a wrong category level was accepted")
        } catch let error as ConfigurationValueError {
            #expect(error.keyPath == "categoryLogLevel.Auth")
        }
        #expect(throws: ConfigurationValueError.self) { try plugin.configure(using: ["categoryLogLevel": "debug"] as JSONValue) }
    }

    @Test("levels map to swift-log's: error, warning, info, debug, trace; none to nothing")
    func levelMapping() {
        #expect(Amplify.LogLevel.allCases.map(SwiftLogLoggingPlugin.swiftLogLevel) == [.error, .warning, .info, .debug, .trace, nil])
        #expect(SwiftLogLoggingPlugin.label(forCategory: "Amplify") == "amplify")
        #expect(SwiftLogLoggingPlugin.label(forCategory: "Storage") == "amplify.storage")
    }

    @Test("a logger without metadata support gets the metadata appended to the message, in key order")
    func defaultMetadataRendering() {
        let recording = RecordingLoggingPlugin()
        let console = Locked<[String]>([])
        let plain = ConsoleLoggingPlugin(logLevel: .debug) { line in console.withLock { $0.append(line) } }
        plain.logger(forCategory: "AWS").log(level: .debug, "GET / → 200", metadata: ["service": "s3", "operation": "GetObject"])
        #expect(console.value == ["[DEBUG] AWS: GET / → 200 (operation=GetObject, service=s3)"])
        recording.logger(forCategory: "AWS").log(level: .info, "kept apart", metadata: ["request-id": "r1"])
        #expect(recording.messages.map(\.message) == ["kept apart"])
        #expect(recording.messages.map(\.metadata) == [["request-id": "r1"]])
    }
}
