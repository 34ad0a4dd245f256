import Amplify
import AmplifyEventLoop
import Foundation
import LocalAnalyticsPlugin
import Testing

@Suite("Local analytics plugin: file settings have ranges")
struct FileSettingRangeTests {
    @Test(
        "maxFileBytes and maxFiles beyond their ranges are refused at configure time with the range",
        arguments: [
            ("maxFileBytes", 1e20, "1", "1099511627776"),
            ("maxFileBytes", 0, "1", "1099511627776"),
            ("maxFiles", 1e20, "0", "1000"),
            ("maxFiles", 9_000_000_000_000_000, "0", "1000"),
        ] as [(String, Double, String, String)])
    func refusesOutOfRange(_ key: String, _ value: Double, _ low: String, _ high: String) async throws {
        let loop = try EventLoop(name: "local-analytics-range")
        let hub = DefaultHubPlugin(loop: loop)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("local-analytics-\(UUID().uuidString)").path
        let plugin = LocalAnalyticsPlugin(loop: loop, hub: hub)
        let error = #expect(throws: ConfigurationValueError.self) {
            try plugin.configure(using: ["directory": .string(directory), "autoFlushEventsInterval": 0, key: .number(value)] as JSONValue)
        }
        #expect(error?.keyPath == key)
        #expect(error?.expected.contains("from \(low) to \(high)") == true, "\(error?.expected ?? "no error")")
        await plugin.reset()
        await hub.reset()
        try loop.shutdown()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
