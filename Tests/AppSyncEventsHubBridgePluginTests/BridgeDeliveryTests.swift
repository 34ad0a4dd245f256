import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import AmplifyConcurrency
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

@testable import AppSyncEventsHubBridgePlugin

/// One "process" of the test: a loop, a Hub, an API plugin with the stand-in as its Events API,
/// and a bridge around the Hub.
private final class Node: Sendable {
    let loop: EventLoop
    let hub: DefaultHubPlugin
    let api: AWSAPIPlugin
    let bridge: AppSyncEventsHubBridgePlugin

    init(_ server: AppSyncEventsServer, selection: HubBridgeSelection = HubBridgeSelection()) throws {
        loop = try EventLoop(name: "bridge-node")
        hub = DefaultHubPlugin(loop: loop)
        api = AWSAPIPlugin(loop: loop, hub: hub, options: AWSAPIPlugin.Options(reconnect: RealtimeReconnectPolicy(baseDelay: .milliseconds(50))))
        try api.configure(endpoints: [
            APIEndpointConfiguration(
                name: "events", endpointType: .events, endpoint: server.httpEndpoint, region: "us-east-1", authorizationType: .apiKey,
                apiKey: "da2-test")
        ])
        bridge = AppSyncEventsHubBridgePlugin(wrapping: hub, events: api.events)
        bridge.start(AppSyncEventsHubBridgeConfiguration(channel: "/default/hub", selection: selection, retryDelay: .milliseconds(20)))
    }

    func connected() async -> Bool { await waitUntil { self.bridge.statistics.connected } }

    func close() async throws {
        await bridge.reset()
        await api.reset()
        try loop.shutdown()
    }
}

private func waitUntil(_ timeout: Duration = .seconds(60), _ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

@Suite("AppSync Events Hub bridge", .serialized)
struct BridgeDeliveryTests {
    @Test("a chosen event reaches the other process once, marked remote, with its data; the sender hears no echo; others stay local")
    func deliversOnceWithoutEcho() async throws {
        try await AppSyncEventsServer.with { server in
            let a = try Node(server)
            let b = try Node(server)
            #expect(await a.connected())
            #expect(await b.connected())
            let atA = HubEventRecorder(channel: .auth, hub: a.bridge)
            let atB = HubEventRecorder(channel: .auth, hub: b.bridge)
            a.bridge.dispatch(to: .auth, payload: HubPayload(eventName: HubPayload.EventName.Auth.signedIn, data: "alice"))
            a.bridge.dispatch(to: .auth, payload: HubPayload(eventName: "Auth.localOnly", data: "stays"))
            a.bridge.dispatch(to: .auth, payload: HubPayload(eventName: HubPayload.EventName.Auth.signedOut, data: "alice"))
            #expect(await waitUntil { atB.payloads.count == 2 })
            #expect(atB.eventNames == [HubPayload.EventName.Auth.signedIn, HubPayload.EventName.Auth.signedOut])
            #expect(atB.payloads.first?.data as? String == "alice")
            #expect((atB.payloads.first?.context as? RemoteHubEvent)?.origin == a.bridge.origin)
            #expect(await waitUntil { a.bridge.statistics.ownSkipped == 2 })
            await a.hub.flush()
            #expect(atA.eventNames == [HubPayload.EventName.Auth.signedIn, "Auth.localOnly", HubPayload.EventName.Auth.signedOut])
            #expect(a.bridge.statistics.published == 2)
            #expect(b.bridge.statistics.received == 2)
            #expect(b.bridge.statistics.gaps == 0)
            try await a.close()
            try await b.close()
        }
    }

    @Test("a jump in a sender's sequence is one Hub.bridgeGap naming the sender and how many were missed; a repeat is dropped")
    func gapAndDuplicate() async throws {
        try await AppSyncEventsServer.with { server in
            let b = try Node(server)
            #expect(await b.connected())
            let status = HubEventRecorder(channel: AppSyncEventsHubBridgePlugin.statusChannel, hub: b.bridge)
            let auth = HubEventRecorder(channel: .auth, hub: b.bridge)
            func wire(_ seq: Int) -> JSONValue {
                [
                    "v": 1, "id": .string("e\(seq)"), "origin": "sender-x", "channel": "auth", "event": "Auth.signedIn", "time": 1,
                    "seq": .number(Double(seq)),
                ]
            }
            try await b.api.events.post("/default/hub", events: [wire(1), wire(2), wire(5), wire(5), wire(6)])
            #expect(await waitUntil { auth.payloads.count == 4 })
            #expect(auth.payloads.compactMap { ($0.context as? RemoteHubEvent)?.id } == ["e1", "e2", "e5", "e6"])
            await b.hub.flush()
            let gaps = status.payloads.filter { $0.eventName == AppSyncEventsHubBridgePlugin.gapEventName }
            #expect(gaps.count == 1)
            #expect(gaps.first?.data as? HubBridgeGap == HubBridgeGap(origin: "sender-x", missed: 2, resumedAt: 5))
            #expect(b.bridge.statistics.duplicates == 1)
            #expect(b.bridge.statistics.missed == 2)
            try await b.close()
        }
    }

    @Test("events dispatched while the connection is down are published once it is back, in order; a receiver that was down reports what it missed")
    func reconnectKeepsOrder() async throws {
        try await AppSyncEventsServer.with { server in
            let a = try Node(server, selection: HubBridgeSelection(channels: [.auth], eventNames: nil))
            let b = try Node(server, selection: HubBridgeSelection(channels: [.auth], eventNames: nil))
            #expect(await a.connected())
            #expect(await b.connected())
            let atB = HubEventRecorder(channel: .auth, hub: b.bridge)
            a.bridge.dispatch(to: .auth, payload: HubPayload(eventName: "n", data: 0))
            #expect(await waitUntil { atB.payloads.count == 1 })
            try server.control("drop")
            for index in 1...20 { a.bridge.dispatch(to: .auth, payload: HubPayload(eventName: "n", data: index)) }
            #expect(await waitUntil { a.bridge.statistics.published == 21 })
            // Once b is back, one more event: b hears it, and so knows of anything it missed before it.
            #expect(await b.connected())
            a.bridge.dispatch(to: .auth, payload: HubPayload(eventName: "n", data: 21))
            #expect(await waitUntil { atB.payloads.last?.data as? Int == 21 })
            // What b heard after the drop is in order and without repeats; what it did not hear is a reported gap.
            #expect((atB.payloads.count - 1) + b.bridge.statistics.missed == 21)
            let heard = atB.payloads.compactMap { $0.data as? Int }
            #expect(heard == heard.sorted())
            #expect(Set(heard).count == heard.count)
            #expect(b.bridge.statistics.disconnections >= 1)
            try await a.close()
            try await b.close()
        }
    }
}

@Suite("AppSync Events Hub bridge: no server")
struct BridgeOutageTests {
    @Test("with AppSync unreachable, events beyond maxQueuedEvents are dropped oldest first and counted; the local Hub keeps delivering")
    func overflowWhileUnreachable() async throws {
        let loop = try EventLoop(name: "bridge-outage")
        let hub = DefaultHubPlugin(loop: loop)
        let api = AWSAPIPlugin(loop: loop, hub: hub, options: AWSAPIPlugin.Options(reconnect: RealtimeReconnectPolicy(maximumAttempts: 1)))
        // Port 9 (discard) on loopback: nothing listens.
        try api.configure(endpoints: [
            APIEndpointConfiguration(
                name: "events", endpointType: .events, endpoint: URL(string: "http://127.0.0.1:9/event") ?? URL(fileURLWithPath: "/"),
                region: "us-east-1", authorizationType: .apiKey, apiKey: "da2-test")
        ])
        let bridge = AppSyncEventsHubBridgePlugin(wrapping: hub, events: api.events)
        bridge.start(AppSyncEventsHubBridgeConfiguration(channel: "/default/hub", maxQueuedEvents: 3))
        let local = HubEventRecorder(channel: .auth, hub: bridge)
        for index in 1...10 { bridge.dispatch(to: .auth, payload: HubPayload(eventName: HubPayload.EventName.Auth.signedIn, data: index)) }
        await hub.flush()
        #expect(local.payloads.compactMap { $0.data as? Int } == Array(1...10))
        #expect(bridge.statistics.dropped == 7)
        #expect(bridge.statistics.published == 0)
        #expect(!bridge.statistics.connected)
        await bridge.reset()
        #expect(bridge.statistics.dropped == 10)
        await api.reset()
        try loop.shutdown()
    }
}
