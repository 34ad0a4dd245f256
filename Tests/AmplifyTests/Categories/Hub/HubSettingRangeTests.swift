import Amplify
import AmplifyEventLoop
import Foundation
import Testing

@Suite("Hub: the slow-listener threshold has a range")
struct HubSettingRangeTests {
    @Test(
        "a threshold beyond its range is refused at configure time with the key path and the range",
        arguments: [1e20, Double(Int64.max), 0, -1])
    func refusesOutOfRange(_ milliseconds: Double) async throws {
        let isolated = try IsolatedHub()
        let error = #expect(throws: ConfigurationValueError.self) {
            try isolated.hub.configure(using: ["slowListenerThresholdMilliseconds": .number(milliseconds)] as JSONValue)
        }
        #expect(error?.keyPath == "slowListenerThresholdMilliseconds")
        #expect(error?.expected.contains("from 0.001 to 3600000") == true, "\(error?.expected ?? "no error")")
        _ = try await isolated.close()
    }

    @Test("the range's ends are accepted")
    func acceptsEnds() async throws {
        let isolated = try IsolatedHub()
        try isolated.hub.configure(using: ["slowListenerThresholdMilliseconds": 3_600_000] as JSONValue)
        #expect(isolated.hub.slowListenerThreshold == .seconds(3600))
        try isolated.hub.configure(using: ["slowListenerThresholdMilliseconds": 0.001] as JSONValue)
        #expect(isolated.hub.slowListenerThreshold == .microseconds(1))
        _ = try await isolated.close()
    }
}
