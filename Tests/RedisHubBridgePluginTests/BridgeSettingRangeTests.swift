import Amplify
import Foundation
import RedisHubBridgePlugin
import Testing

@Suite("Redis Hub bridge: numeric settings have ranges")
struct BridgeSettingRangeTests {
    @Test(
        "a number beyond a setting's range is refused, naming the key and the range",
        arguments: [
            ("maxStreamLength", 1e20, "1", "1000000000"),
            ("maxQueuedEvents", 9_000_000_000_000_000, "1", "100000000"),
            ("reconnectDelayMilliseconds", 9_000_000_000_000_000, "1", "3600000"),
            ("maxReconnectDelayMilliseconds", 1e20, "1", "3600000"),
        ] as [(String, Double, String, String)])
    func refusesOutOfRange(_ key: String, _ value: Double, _ low: String, _ high: String) {
        let error = #expect(throws: ConfigurationValueError.self) {
            try RedisHubBridgeConfiguration(json: ["url": "redis://127.0.0.1", key: .number(value)])
        }
        #expect(error?.keyPath == key)
        #expect(error?.expected.contains("from \(low) to \(high)") == true, "\(error?.expected ?? "no error")")
    }

    @Test("a port beyond 65535 in the URL is refused at configure time", arguments: ["redis://127.0.0.1:99999999999", "redis://127.0.0.1:70000"])
    func refusesPort(_ url: String) {
        let error = #expect(throws: ConfigurationValueError.self) { try RedisHubBridgeConfiguration(json: ["url": .string(url)]) }
        #expect(error?.keyPath == "url")
    }
}
