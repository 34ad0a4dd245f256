import Amplify
import AmplifyConcurrency
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import RedisHubBridgePlugin
import Testing

/// Two bridges in one test process, each with its own loop, Hub and origin, as two processes
/// would have, against the test's own redis-server.
@Suite("Redis Hub bridge: delivery between bridges")
struct BridgeDeliveryTests {
    final class Node: Sendable {
        let loop: EventLoop
        let hub: DefaultHubPlugin
        let bridge: RedisHubBridgePlugin
        let received = Locked<[HubPayload]>([])

        init(_ name: String, port: Int, mode: RedisHubBridgeConfiguration.Mode = .pubsub, group: String? = nil, start: Bool = true) throws {
            loop = try EventLoop(name: name)
            hub = DefaultHubPlugin(loop: loop)
            bridge = try RedisHubBridgePlugin(wrapping: hub, loop: loop)
            bridge.listen(to: .auth, isIncluded: nil, file: #fileID, line: #line) { [received] payload in
                received.withLock { $0.append(payload) }
            }
            if start { try self.start(port: port, mode: mode, group: group ?? name) }
        }

        func start(port: Int, mode: RedisHubBridgeConfiguration.Mode = .pubsub, group: String) throws {
            try bridge.start(
                RedisHubBridgeConfiguration(
                    port: port, mode: mode, consumerGroup: group, reconnectDelay: .milliseconds(20), maxReconnectDelay: .milliseconds(200)))
        }

        func waitConnected() async throws {
            try await waitFor("\(loop.name) connected") { bridge.statistics.connected }
        }

        func close() async throws {
            await bridge.reset()
            try loop.shutdown()
            #expect(loop.loopClosedCleanly)
        }
    }

    static func waitFor(_ what: String, seconds: Double = 60, _ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else {
                Issue.record("timed out waiting for \(what)")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    func waitFor(_ what: String, seconds: Double = 60, _ condition: () -> Bool) async throws {
        try await Self.waitFor(what, seconds: seconds, condition)
    }

    @Test("a signed-out event reaches the other bridge's listeners with its data and a RemoteHubEvent context, and never comes back to its sender")
    func crossDeliveryWithoutEcho() async throws {
        let redis = try await RedisServer.launch()
        defer { redis.stop() }
        let a = try Node("bridge-a", port: redis.port)
        let b = try Node("bridge-b", port: redis.port)
        try await a.waitConnected()
        try await b.waitConnected()
        a.bridge.dispatch(to: .auth, payload: HubPayload(eventName: HubPayload.EventName.Auth.signedOut, data: "alice"))
        try await waitFor("b to receive") { b.received.value.count == 1 }
        let payload = try #require(b.received.value.first)
        #expect(payload.eventName == HubPayload.EventName.Auth.signedOut)
        #expect(payload.data as? String == "alice")
        let remote = try #require(payload.context as? RemoteHubEvent)
        #expect(remote.origin == a.bridge.origin)
        // The sender's own listener heard it once, locally; Redis echoed it and the bridge skipped it.
        try await waitFor("a to skip its own event") { a.bridge.statistics.ownSkipped == 1 }
        await a.hub.flush()
        #expect(a.received.value.count == 1)
        #expect(a.received.value.first?.context == nil)
        // A remote event is not forwarded again by the receiver.
        await b.hub.flush()
        #expect(b.bridge.statistics.published == 0)
        try await a.close()
        try await b.close()
    }

    @Test("only the configured events cross; an event whose payload cannot be encoded stays local, counted")
    func selectionAndUnencodable() async throws {
        struct NotEncodable: Sendable {}
        let redis = try await RedisServer.launch()
        defer { redis.stop() }
        let a = try Node("bridge-a", port: redis.port)
        let b = try Node("bridge-b", port: redis.port)
        try await a.waitConnected()
        try await b.waitConnected()
        a.bridge.dispatch(to: .auth, payload: HubPayload(eventName: HubPayload.EventName.Auth.signInAPI, data: "not forwarded"))
        a.bridge.dispatch(to: .auth, payload: HubPayload(eventName: HubPayload.EventName.Auth.userDeleted, data: NotEncodable()))
        a.bridge.dispatch(to: .auth, payload: HubPayload(eventName: HubPayload.EventName.Auth.sessionExpired, data: "bob"))
        try await waitFor("b to receive the expiry") { b.received.value.count == 1 }
        #expect(b.received.value.map(\.eventName) == [HubPayload.EventName.Auth.sessionExpired])
        #expect(a.bridge.statistics.unencodable == 1)
        await a.hub.flush()
        #expect(a.received.value.count == 3)
        try await a.close()
        try await b.close()
    }

    @Test("with Redis down at start the local Hub works, and what was dispatched meanwhile reaches Redis once it is up")
    func redisDownAtStart() async throws {
        let redis = try await RedisServer.launch()
        redis.stop()
        let a = try Node("bridge-a", port: redis.port, mode: .streams)
        a.bridge.dispatch(to: .auth, payload: HubPayload(eventName: HubPayload.EventName.Auth.signedOut, data: "early"))
        await a.hub.flush()
        #expect(a.received.value.count == 1)
        try await waitFor("a to notice Redis is down") { a.bridge.statistics.disconnections >= 1 }
        #expect(!a.bridge.statistics.connected)
        try await redis.start()
        defer { redis.stop() }
        try await a.waitConnected()
        try await waitFor("the queued event to reach Redis") { a.bridge.statistics.published == 1 }
        let b = try Node("bridge-b", port: redis.port, mode: .streams)
        try await b.waitConnected()
        a.bridge.dispatch(to: .auth, payload: HubPayload(eventName: HubPayload.EventName.Auth.signedOut, data: "late"))
        try await waitFor("b to receive") { b.received.value.count == 1 }
        #expect(b.received.value.compactMap { $0.data as? String } == ["late"])
        try await a.close()
        try await b.close()
    }

    @Test("streams mode: redis-server restarted (its data gone) while events are dispatched; nothing is lost and order holds")
    func streamsSurviveRedisRestart() async throws {
        let redis = try await RedisServer.launch()
        defer { redis.stop() }
        let a = try Node("bridge-a", port: redis.port, mode: .streams)
        let b = try Node("bridge-b", port: redis.port, mode: .streams)
        try await a.waitConnected()
        try await b.waitConnected()
        a.bridge.dispatch(to: .auth, payload: HubPayload(eventName: HubPayload.EventName.Auth.signedOut, data: "u0"))
        try await waitFor("b to receive u0") { b.received.value.count == 1 }
        redis.stop()
        try await waitFor("both to notice") { !a.bridge.statistics.connected && !b.bridge.statistics.connected }
        for index in 1...20 {
            a.bridge.dispatch(to: .auth, payload: HubPayload(eventName: HubPayload.EventName.Auth.signedOut, data: "u\(index)"))
        }
        try await redis.start()
        try await waitFor("b to receive all") { b.received.value.count == 21 }
        #expect(b.received.value.compactMap { $0.data as? String } == (0...20).map { "u\($0)" })
        #expect(a.bridge.statistics.dropped == 0)
        try await a.close()
        try await b.close()
    }

    @Test("streams mode: events published while a bridge was stopped arrive when it starts again with its consumer group")
    func streamsSurviveBridgeRestart() async throws {
        let redis = try await RedisServer.launch()
        defer { redis.stop() }
        let a = try Node("bridge-a", port: redis.port, mode: .streams)
        let b = try Node("bridge-b", port: redis.port, mode: .streams, group: "service-b")
        try await a.waitConnected()
        try await b.waitConnected()
        a.bridge.dispatch(to: .auth, payload: HubPayload(eventName: HubPayload.EventName.Auth.signedOut, data: "before"))
        try await waitFor("b to receive the first") { b.received.value.count == 1 }
        try await b.close()
        for name in ["while-away-1", "while-away-2", "while-away-3"] {
            a.bridge.dispatch(to: .auth, payload: HubPayload(eventName: HubPayload.EventName.Auth.signedOut, data: name))
        }
        try await waitFor("Redis to accept them") { a.bridge.statistics.published == 4 }
        let restarted = try Node("bridge-b2", port: redis.port, mode: .streams, group: "service-b")
        try await waitFor("the restarted b to catch up") { restarted.received.value.count == 3 }
        #expect(restarted.received.value.compactMap { $0.data as? String } == ["while-away-1", "while-away-2", "while-away-3"])
        #expect(restarted.received.value.allSatisfy { ($0.context as? RemoteHubEvent)?.streamEntryId != nil })
        try await a.close()
        try await restarted.close()
    }
}
