import Amplify
import Foundation
import Testing

@testable import RedisHubBridgePlugin

@Suite("Redis Hub bridge: configuration and wire format")
struct BridgeConfigurationTests {
    @Test("a block reads into URL, mode, channels, event names and limits; defaults fill the rest")
    func readsBlock() throws {
        let configuration = try RedisHubBridgeConfiguration(json: [
            "url": "redis://10.0.0.5:6380", "mode": "streams", "channels": ["auth", "orders"],
            "eventNames": ["*"], "consumerGroup": "orders-1", "maxQueuedEvents": 10,
        ])
        #expect(configuration.host == "10.0.0.5")
        #expect(configuration.port == 6380)
        #expect(configuration.mode == .streams)
        #expect(configuration.channels == [.auth, .custom("orders")])
        #expect(configuration.eventNames == nil)
        #expect(configuration.consumerGroup == "orders-1")
        #expect(configuration.maxQueuedEvents == 10)
        let minimal = try RedisHubBridgeConfiguration(json: ["url": "redis://127.0.0.1"])
        #expect(minimal.port == 6379 && minimal.mode == .pubsub && minimal.channels == [.auth])
        #expect(minimal.forwards(.auth, HubPayload.EventName.Auth.signedOut))
        #expect(!minimal.forwards(.auth, HubPayload.EventName.Auth.signInAPI))
        #expect(!minimal.forwards(.storage, HubPayload.EventName.Auth.signedOut))
    }

    @Test(
        "a bad block names the key and what was expected",
        arguments: [
            (JSONValue.object([:]), "url"),
            (["url": "http://127.0.0.1:6379"], "url"),
            (["url": "redis://127.0.0.1", "mode": "fanout"], "mode"),
            (["url": "redis://127.0.0.1", "channels": []], "channels"),
            (["url": "redis://127.0.0.1", "eventNames": [1]], "eventNames"),
            (["url": "redis://127.0.0.1", "maxQueuedEvents": 0], "maxQueuedEvents"),
        ] as [(JSONValue, String)])
    func rejectsBadBlock(_ block: JSONValue, _ keyPath: String) {
        #expect {
            try RedisHubBridgeConfiguration(json: block)
        } throws: { ($0 as? ConfigurationValueError)?.keyPath == keyPath }
    }

    struct Order: Codable, Sendable, Equatable {
        var id: String
        var total: Double
    }

    struct Opaque: Sendable {}

    @Test("payload data crosses as JSON: built-in values and registered types come back as themselves, others as JSONValue")
    func codec() throws {
        HubPayloadCodec.register(Order.self)
        let order = Order(id: "o-1", total: 59.5)
        let (json, type) = try #require(try HubPayloadCodec.encode(order).get())
        #expect(json == ["id": "o-1", "total": 59.5])
        #expect(HubPayloadCodec.decode(json, type: type) as? Order == order)
        #expect(HubPayloadCodec.decode(json, type: "Some.UnknownType") as? JSONValue == json)
        let (text, textType) = try #require(try HubPayloadCodec.encode("alice").get())
        #expect(HubPayloadCodec.decode(text, type: textType) as? String == "alice")
        let (number, numberType) = try #require(try HubPayloadCodec.encode(42).get())
        #expect(HubPayloadCodec.decode(number, type: numberType) as? Int == 42)
        #expect(try HubPayloadCodec.encode(nil).get() == nil)
        #expect(throws: HubPayloadEncodingError.self) { try HubPayloadCodec.encode(Opaque()).get() }
    }
}
