import AWSPluginsCore
import Amplify
import AmplifyTestKit
import Foundation
import Testing

@testable import AWSAPIPlugin

/// Subscriptions over AppSync's real-time protocol against the stand-in: the states each
/// sequence and the Hub report, every auth mode, one socket for many subscriptions, `ka`
/// silence, drops and reconnection, the socket closed after the last stop, and the failures
/// that must end a sequence with a clear error instead of hanging.
// Serialized: each test starts a stand-in of its own, and a full parallel run on two cores must
// not start a dozen at once.
@Suite("Subscriptions", .serialized)
struct SubscriptionTests {
    private func subscribe(_ fixture: APIFixture, name: String? = nil, mode: AWSAuthorizationType? = nil) -> SubscriptionCollector<Todo> {
        var variables: [String: any Sendable]?
        if let name { variables = ["name": name] }
        return SubscriptionCollector(
            fixture.plugin.subscribe(
                request: GraphQLRequest(
                    document: Documents.onCreate, variables: variables, responseType: Todo.self, decodePath: "onCreateTodo", authMode: mode)))
    }

    @Test("a subscription reports connecting then connected, receives each mutation's data, and its states go to the Hub with the API's name")
    func dataAfterConnected() async throws {
        try await AppSyncServer.with { server in
            let fixture = try APIFixture(server: server)
            let subscription = subscribe(fixture, name: "milk")
            #expect(await subscription.connected())
            try await fixture.create("milk", priority: 1)
            try await fixture.create("bread")
            try await fixture.create("milk", priority: 2)
            #expect(await subscription.wait { $0.values.count == 2 })
            #expect(subscription.values.map(\.priority) == [1, 2])
            #expect(subscription.states == [.connecting, .connected])
            subscription.cancel()
            await fixture.hub.flush()
            let states = fixture.events.payloads.filter { $0.eventName == HubPayload.EventName.API.subscribe }
            #expect(states.compactMap { $0.data as? SubscriptionConnectionState } == [.connecting, .connected])
            #expect(states.allSatisfy { ($0.context as? APIOperationContext)?.apiName == "todos" })
            try await fixture.close()
        }
    }

    @Test("API_KEY, AWS_IAM, OPENID_CONNECT and AWS_LAMBDA each authorize the socket and the start; each mode has a socket of its own")
    func everyModeSubscribes() async throws {
        try await AppSyncServer.with(.allButUserPools) { server in
            let fixture = try APIFixture(
                server: server,
                factory: APIAuthProviderFactory(oidc: FixedToken(token: "oidc-token-1"), function: FixedToken(token: "lambda-token-1")))
            let modes: [AWSAuthorizationType] = [.apiKey, .awsIAM, .openIDConnect, .function]
            let subscriptions = modes.map { subscribe(fixture, name: "modes", mode: $0) }
            for (mode, subscription) in zip(modes, subscriptions) { #expect(await subscription.connected(), "\(mode)") }
            #expect(try server.state()["connections"] == 4)
            try await fixture.create("modes")
            for (mode, subscription) in zip(modes, subscriptions) {
                #expect(await subscription.wait { $0.values.count == 1 }, "\(mode)")
            }
            for subscription in subscriptions { subscription.cancel() }
            try await fixture.close()
        }
    }

    @Test(
        "a wrong API key is refused on connect: after one retry with fresh credentials the sequence fails with an error that names UnauthorizedException"
    )
    func wrongKeyIsRefused() async throws {
        try await AppSyncServer.with { server in
            let fixture = try APIFixture(server: server, apiKey: "da2-wrong")
            let subscription = subscribe(fixture)
            #expect(await subscription.wait { $0.end != nil })
            let error = subscription.error as? APIError
            guard case .operationError(let description, _, _)? = error else {
                Issue.record("expected an operation error, got \(String(describing: subscription.error))")
                return
            }
            #expect(description.hasPrefix("The server refused the real-time connection to 'todos' (API_KEY): UnauthorizedException"))
            #expect(subscription.states == [.connecting, .disconnected])
            try await fixture.close()
        }
    }

    @Test("100 subscriptions share one socket, and each receives exactly its own mutations, in order")
    func hundredOnOneSocket() async throws {
        try await AppSyncServer.with { server in
            let fixture = try APIFixture(server: server)
            let subscriptions = (0..<100).map { subscribe(fixture, name: "s\($0)") }
            for subscription in subscriptions { #expect(await subscription.connected()) }
            let state = try server.state()
            #expect(state["connections"] == 1)
            #expect(state["subscriptions"] == 100)
            #expect(await fixture.plugin.realtimeConnectionCount() == 1)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<100 {
                    group.addTask { for priority in 1...3 { try await fixture.create("s\(index)", priority: priority) } }
                }
                try await group.waitForAll()
            }
            for (index, subscription) in subscriptions.enumerated() {
                #expect(await subscription.wait { $0.values.count == 3 }, "s\(index)")
                #expect(subscription.values.map(\.name) == ["s\(index)", "s\(index)", "s\(index)"])
                #expect(subscription.values.map(\.priority) == [1, 2, 3])
            }
            for subscription in subscriptions { subscription.cancel() }
            try await fixture.close()
        }
    }

    @Test("ka silence past connectionTimeoutMs is detected: the socket is replaced, the subscription restarted, and data flows again")
    func keepAliveSilence() async throws {
        try await AppSyncServer.with(AppSyncServer.Options(keepAliveInterval: 0.2, connectionTimeoutMs: 1000)) { server in
            let fixture = try APIFixture(
                server: server, options: AWSAPIPlugin.Options(reconnect: RealtimeReconnectPolicy(baseDelay: .milliseconds(50))))
            let subscription = subscribe(fixture, name: "ka")
            #expect(await subscription.connected())
            try server.control("stop-ka")
            #expect(await subscription.wait(timeout: .seconds(30)) { $0.states.count >= 3 })
            #expect(subscription.states.prefix(3) == [.connecting, .connected, .connecting])
            try server.control("start-ka")
            #expect(await subscription.wait(timeout: .seconds(30)) { $0.states.last == .connected && $0.states.count >= 4 })
            try await fixture.create("ka")
            #expect(await subscription.wait { $0.values.count == 1 })
            #expect(try server.state()["connections"] == 1)
            subscription.cancel()
            try await fixture.close()
        }
    }

    @Test("a server-side drop (TCP closed, no close frame) is followed by a reconnect, and mutations after it arrive")
    func dropAndReconnect() async throws {
        try await AppSyncServer.with { server in
            let fixture = try APIFixture(
                server: server, options: AWSAPIPlugin.Options(reconnect: RealtimeReconnectPolicy(baseDelay: .milliseconds(50))))
            let first = subscribe(fixture, name: "drop")
            let second = subscribe(fixture, name: "drop")
            #expect(await first.connected())
            #expect(await second.connected())
            try await fixture.create("drop", priority: 1)
            #expect(await first.wait { $0.values.count == 1 })
            try server.control("drop")
            for subscription in [first, second] {
                #expect(await subscription.wait { $0.states == [.connecting, .connected, .connecting, .connected] })
            }
            try await fixture.create("drop", priority: 2)
            #expect(await first.wait { $0.values.count == 2 })
            #expect(await second.wait { $0.values.count == 2 })
            #expect(first.values.map(\.priority) == [1, 2])
            #expect(try server.state()["subscriptions"] == 2)
            first.cancel()
            second.cancel()
            try await fixture.close()
        }
    }

    @Test("the socket closes after the last subscription stops, and the next subscription opens a new one")
    func lastStopClosesTheSocket() async throws {
        try await AppSyncServer.with { server in
            let fixture = try APIFixture(server: server)
            let first = subscribe(fixture)
            let second = subscribe(fixture)
            #expect(await first.connected())
            #expect(await second.connected())
            first.cancel()
            // Until the stand-in has the stop (the socket stays for the second subscription).
            #expect(await first.wait { _ in (try? server.state()["subscriptions"]) == 1 })
            #expect(try server.state()["connections"] == 1)
            second.cancel()
            let closed = await first.wait { _ in (try? server.state()["connections"]) == 0 }
            #expect(closed)
            #expect(await fixture.plugin.realtimeConnectionCount() == 0)
            let third = subscribe(fixture)
            #expect(await third.connected())
            #expect(try server.state()["connections"] == 1)
            third.cancel()
            try await fixture.close()
        }
    }

    @Test("a document the server refuses fails only that subscription, with the server's message; the socket's other subscription goes on")
    func refusedStart() async throws {
        try await AppSyncServer.with { server in
            let fixture = try APIFixture(server: server)
            let good = subscribe(fixture, name: "ok")
            #expect(await good.connected())
            let bad = SubscriptionCollector(
                fixture.plugin.subscribe(
                    request: GraphQLRequest(
                        document: "subscription { onNothing { id } }", responseType: JSONValue.self)))
            #expect(await bad.wait { $0.end != nil })
            #expect((bad.error as? APIError)?.errorDescription.hasPrefix("The server refused the subscription:") == true)
            try await fixture.create("ok")
            #expect(await good.wait { $0.values.count == 1 })
            good.cancel()
            try await fixture.close()
        }
    }

    @Test("with the stand-in gone, reconnection gives up after the policy's attempts: disconnected, then APIError.networkError, no hang")
    func serverGone() async throws {
        let server = try await AppSyncServer.start()
        let fixture = try APIFixture(
            server: server,
            options: AWSAPIPlugin.Options(
                reconnect: RealtimeReconnectPolicy(maximumAttempts: 2, baseDelay: .milliseconds(20), maximumDelay: .milliseconds(50)),
                acknowledgementTimeout: .seconds(20)))
        let subscription = subscribe(fixture)
        #expect(await subscription.connected())
        server.stop()
        #expect(await subscription.wait(timeout: .seconds(30)) { $0.end != nil })
        guard case .networkError(let description, _, _)? = subscription.error as? APIError else {
            Issue.record("expected a network error, got \(String(describing: subscription.error))")
            return
        }
        #expect(description.hasPrefix("The real-time connection to 'todos' (API_KEY) failed 3 times in a row"))
        #expect(subscription.states.last == .disconnected)
        try await fixture.close()
    }

    @Test("a WebSocket that closes in the middle of a frame ends, once the retries are spent, with an APIError that says so")
    func closedMidFrame() async throws {
        let peer = try await WebSocketTestServer.start()
        defer { peer.stop() }
        let fixture = try APIFixture(
            endpoint: peer.httpURL("/midframe/graphql"),
            options: AWSAPIPlugin.Options(
                reconnect: RealtimeReconnectPolicy(maximumAttempts: 1, baseDelay: .milliseconds(20)), acknowledgementTimeout: .seconds(2)))
        let subscription = subscribe(fixture)
        #expect(await subscription.wait(timeout: .seconds(30)) { $0.end != nil })
        let error = subscription.error as? APIError
        #expect(error?.errorDescription.contains("The connection closed in the middle of a frame.") == true, "\(String(describing: error))")
        try await fixture.close()
    }

    @Test("wss: the stand-in over TLS with a self-signed certificate the test trusts; the subscription and the mutation both use it")
    func overTLS() async throws {
        try await AppSyncServer.with(AppSyncServer.Options(tls: true)) { server in
            let fixture = try APIFixture(server: server)
            let subscription = subscribe(fixture, name: "tls")
            #expect(await subscription.connected())
            try await fixture.create("tls")
            #expect(await subscription.wait { $0.values.count == 1 })
            subscription.cancel()
            try await fixture.close()
        }
    }

    @Test("resetting the plugin ends every subscription: disconnected, then the sequence finishes")
    func resetEndsSubscriptions() async throws {
        try await AppSyncServer.with { server in
            let fixture = try APIFixture(server: server)
            let subscription = subscribe(fixture)
            #expect(await subscription.connected())
            await fixture.plugin.reset()
            #expect(await subscription.wait { $0.end != nil })
            #expect(subscription.states == [.connecting, .connected, .disconnected])
            #expect(subscription.error == nil)
            try await fixture.close()
        }
    }
}
