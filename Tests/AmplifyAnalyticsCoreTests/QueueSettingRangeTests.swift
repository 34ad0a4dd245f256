import Amplify
import AmplifyAnalyticsCore
import Testing

@Suite("Analytics queue settings: every number has a range")
struct QueueSettingRangeTests {
    @Test(
        "a number beyond a setting's range is refused, naming the key and the range",
        arguments: [
            ("autoFlushEventsInterval", 1e20, "0", "86400"),
            ("autoFlushEventsInterval", 9_000_000_000_000_000, "0", "86400"),
            ("maxQueuedEvents", 1e20, "1", "100000000"),
            ("maxAttempts", 1e20, "1", "1000"),
            ("batchSize", 1e20, "1", "10000"),
            ("batchSize", 0, "1", "10000"),
        ] as [(String, Double, String, String)])
    func refusesOutOfRange(_ key: String, _ value: Double, _ low: String, _ high: String) {
        let error = #expect(throws: ConfigurationValueError.self) {
            try AnalyticsQueueSettings(json: .object([key: .number(value)]))
        }
        #expect(error?.keyPath == key)
        #expect(error?.expected.contains("from \(low) to \(high)") == true, "\(error?.expected ?? "no error")")
    }

    @Test("the ends of the ranges are accepted")
    func acceptsEnds() throws {
        let high = try AnalyticsQueueSettings(json: [
            "autoFlushEventsInterval": 86400, "maxQueuedEvents": 100_000_000, "maxAttempts": 1000, "batchSize": 10000,
        ])
        #expect(high.autoFlushEventsInterval == 86400 && high.maxQueuedEvents == 100_000_000 && high.batchSize == 10000)
        let low = try AnalyticsQueueSettings(json: ["autoFlushEventsInterval": 0, "maxQueuedEvents": 1, "maxAttempts": 1, "batchSize": 1])
        #expect(low.autoFlushEventsInterval == 0 && low.maxAttempts == 1)
    }
}
