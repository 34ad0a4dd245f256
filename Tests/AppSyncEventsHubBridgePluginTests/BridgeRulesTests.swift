import Amplify
import Testing

@testable import AppSyncEventsHubBridgePlugin

/// What a receiver makes of sequence numbers, and the configuration block's errors.
@Suite("AppSync Events Hub bridge: sequences and configuration")
struct BridgeRulesTests {
    @Test("a sender's first event sets its start; then the next is delivered, a repeat dropped, a jump reported with how many were missed")
    func sequences() {
        var sequences = SenderSequences()
        #expect(sequences.receive(7, from: "a") == .next)
        #expect(sequences.receive(8, from: "a") == .next)
        #expect(sequences.receive(8, from: "a") == .duplicate)
        #expect(sequences.receive(3, from: "a") == .duplicate)
        #expect(sequences.receive(12, from: "a") == .gap(missed: 3))
        #expect(sequences.receive(1, from: "b") == .next)
        #expect(sequences.receive(13, from: "a") == .next)
        #expect(sequences.senderCount == 2)
        // Numbers no bridge sends (a hostile publisher's): refused, never an overflow.
        #expect(sequences.receive(0, from: "c") == nil)
        #expect(sequences.receive(-1_000_000_000_000_000_000, from: "a") == nil)
        #expect(sequences.receive(Int.max, from: "a") == nil)
        #expect(sequences.receive((1 << 53) + 1, from: "a") == nil)
        #expect(sequences.receive(1 << 53, from: "a") == .gap(missed: (1 << 53) - 14))
    }

    @Test("the block needs a channel without wildcard; authMode and maxQueuedEvents are checked; channels and eventNames read as the Redis bridge's")
    func configuration() throws {
        let full = try AppSyncEventsHubBridgeConfiguration(
            json: [
                "channel": "/default/hub", "apiName": "events", "authMode": "AWS_IAM", "channels": ["auth", "orders"], "eventNames": ["*"],
                "maxQueuedEvents": 5,
            ])
        #expect(full.channel == "/default/hub")
        #expect(full.authMode == .awsIAM)
        #expect(full.selection.channels == [.auth, HubChannel(name: "orders")])
        #expect(full.selection.eventNames == nil)
        #expect(full.maxQueuedEvents == 5)
        #expect(AppSyncEventsHubBridgeConfiguration(maxQueuedEvents: -5).maxQueuedEvents == 1)
        let defaults = try AppSyncEventsHubBridgeConfiguration(json: ["channel": "/default/hub"])
        #expect(defaults.selection == HubBridgeSelection())
        let bad: [(JSONValue, String)] = [
            ([:], "channel"), (["channel": "/default/*"], "channel"), (["channel": "hub"], "channel"),
            (["channel": "/default/hub", "authMode": "PASSWORD"], "authMode"),
            (["channel": "/default/hub", "maxQueuedEvents": 0], "maxQueuedEvents"),
            (["channel": "/default/hub", "channels": []], "channels"),
        ]
        for (json, key) in bad {
            let error = #expect(throws: ConfigurationValueError.self, "\(json)") { try AppSyncEventsHubBridgeConfiguration(json: json) }
            #expect(error?.keyPath == key)
        }
    }
}
