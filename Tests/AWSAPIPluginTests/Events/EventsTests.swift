import AWSPluginsCore
import Amplify
import AmplifyConcurrency
import AmplifyTestKit
import Foundation
import Testing

@testable import AWSAPIPlugin

/// AppSync Events against the stand-in: connect, subscribe, publish over the WebSocket and over
/// HTTP, every auth mode set separately for connect, subscribe and publish, AppSync's limits,
/// refusals, and the faults (silence, drops, a frame cut short) that must end in a reconnect or
/// a clear error, never a hang or a silent loss.
// Serialized: each test starts a stand-in of its own.
@Suite("AppSync Events", .serialized)
struct EventsTests {
    @Test("an event posted over HTTP and one published over the WebSocket both reach a subscriber, in order, as the JSON sent")
    func subscribeAndPublish() async throws {
        try await AppSyncEventsServer.with { server in
            let fixture = try EventsFixture(server: server)
            let channel = try await fixture.events.connect("/default/room-1")
            #expect(channel.path == "/default/room-1")
            let subscription = EventsCollector(channel.subscribe())
            #expect(await subscription.connected())
            let posted = try await fixture.events.post("default/room-1", ["text": "over http", "n": 1])
            #expect(posted.successful.count == 1 && posted.failed.isEmpty)
            let published = try await channel.publish(events: [["text": "over ws", "n": 2], ["nested": ["a": [1, 2]]]])
            #expect(published.successful.map(\.index) == [0, 1])
            #expect(await subscription.wait { $0.values.count == 3 })
            #expect(subscription.values == [["text": "over http", "n": 1], ["text": "over ws", "n": 2], ["nested": ["a": [1, 2]]]])
            #expect(subscription.states == [.connecting, .connected])
            #expect(await fixture.plugin.eventsConnectionCount() == 1)
            await channel.close()
            #expect(await subscription.wait { $0.end != nil })
            #expect(subscription.states.last == .disconnected)
            #expect(await subscription.wait { _ in (try? server.state().connections) == 0 })
            #expect(await fixture.plugin.eventsConnectionCount() == 0)
            try await fixture.close()
        }
    }

    @Test("a wildcard subscription receives every channel below it and nothing from other namespaces")
    func wildcard() async throws {
        try await AppSyncEventsServer.with(.everyMode) { server in
            let fixture = try EventsFixture(server: server)
            let channel = try await fixture.events.connect("/default/*")
            let subscription = EventsCollector(channel.subscribe())
            #expect(await subscription.connected())
            try await fixture.events.post("/default/a/b", "deep")
            try await fixture.events.post("/other/a", "elsewhere")
            try await fixture.events.post("/default/c", "shallow")
            #expect(await subscription.wait { $0.values.count == 2 })
            #expect(subscription.values == ["deep", "shallow"])
            await channel.close()
            try await fixture.close()
        }
    }

    @Test("connect, subscribe and publish each take their own auth mode: IAM, user pools, OIDC and Lambda tokens, an API key")
    func separateModes() async throws {
        try await AppSyncEventsServer.with(.everyMode) { server in
            let fixture = try EventsFixture(
                server: server, mode: .awsIAM,
                factory: APIAuthProviderFactory(oidc: EventsToken(token: "oidc-token-1"), function: EventsToken(token: "lambda-token-1")))
            let channel = try await fixture.events.connect("/default/modes")
            let byUserPool = EventsCollector(channel.subscribe(options: EventsOptions(authMode: .amazonCognitoUserPools)))
            let byIAM = EventsCollector(channel.subscribe())
            #expect(await byUserPool.connected())
            #expect(await byIAM.connected())
            try await channel.publish("iam")
            try await channel.publish("oidc", options: EventsOptions(authMode: .openIDConnect))
            try await channel.publish("lambda", options: EventsOptions(authMode: .function))
            try await channel.publish("key", options: EventsOptions(authMode: .apiKey))
            try await fixture.events.post("/default/modes", "token", options: EventsOptions(authMode: .function, authToken: "lambda-token-1"))
            #expect(await byIAM.wait { $0.values.count == 5 })
            #expect(byIAM.values == ["iam", "oidc", "lambda", "key", "token"])
            #expect(await byUserPool.wait { $0.values.count == 5 })
            await channel.close()
            try await fixture.close()
        }
    }

    @Test("a wrong key is refused with AppSync's reason: on connect, on a subscribe, on a publish, and over HTTP as 401")
    func refusals() async throws {
        try await AppSyncEventsServer.with { server in
            let wrong = try EventsFixture(server: server, apiKey: "da2-wrong")
            let connectError = await #expect(throws: APIError.self) { try await wrong.events.connect("/default/x") }
            #expect(connectError?.errorDescription.contains("UnauthorizedException") == true)
            let postError = await #expect(throws: APIError.self) { try await wrong.events.post("/default/x", "e") }
            if case .httpStatusError(let status, _)? = postError {
                #expect(status == 401)
            } else {
                Issue.record("not a 401: \(String(describing: postError))")
            }
            try await wrong.close()

            let fixture = try EventsFixture(server: server)
            let channel = try await fixture.events.connect("/default/x")
            let refused = EventsCollector(channel.subscribe(options: EventsOptions(authMode: .function, authToken: "not-a-token")))
            #expect(await refused.wait { $0.end != nil })
            #expect("\(refused.error.map(String.init(describing:)) ?? "")".contains("Unauthorized"))
            let publishError = await #expect(throws: APIError.self) {
                try await channel.publish("e", options: EventsOptions(authMode: .openIDConnect, authToken: "not-a-token"))
            }
            #expect(publishError?.errorDescription.contains("refused the publish") == true)
            await channel.close()
            try await fixture.close()
        }
    }

    @Test("six events, an event over 240 KB, a bad channel and a wildcard publish are errors before anything is sent")
    func limitsBeforeSending() async throws {
        try await AppSyncEventsServer.with { server in
            let fixture = try EventsFixture(server: server)
            let six = Array(repeating: JSONValue.string("e"), count: 6)
            await #expect(throws: APIError.self) { try await fixture.events.post("/default/x", events: six) }
            let big = JSONValue.string(String(repeating: "x", count: 240 * 1024))
            let tooBig = await #expect(throws: APIError.self) { try await fixture.events.post("/default/x", big) }
            #expect(tooBig?.errorDescription.contains("240 KB") == true)
            await #expect(throws: APIError.self) { try await fixture.events.post("/default/a/b/c/d/e", "six segments") }
            await #expect(throws: APIError.self) { try await fixture.events.post("/default/under_score", "bad character") }
            let channel = try await fixture.events.connect("/default/*")
            let wildcard = await #expect(throws: APIError.self) { try await channel.publish("to every channel") }
            #expect(wildcard?.errorDescription.contains("wildcard") == true)
            await #expect(throws: APIError.self) { try await channel.publish(events: six) }
            #expect(try server.state().published == 0)
            await channel.close()
            try await fixture.close()
        }
    }

    @Test("a namespace the API does not have is refused by AppSync with its reason, not retried")
    func unknownNamespace() async throws {
        try await AppSyncEventsServer.with { server in
            let fixture = try EventsFixture(server: server)
            let error = await #expect(throws: APIError.self) { try await fixture.events.post("/nowhere/x", "e") }
            if case .httpStatusError(let status, _)? = error {
                #expect(status == 400)
            } else {
                Issue.record("not a 400: \(String(describing: error))")
            }
            let channel = try await fixture.events.connect("/nowhere/x")
            let refused = EventsCollector(channel.subscribe())
            #expect(await refused.wait { $0.end != nil })
            #expect(refused.error != nil)
            await channel.close()
            try await fixture.close()
        }
    }

    @Test("ka silence past connectionTimeoutMs is detected: the socket is replaced, the subscription resubscribed, events flow again")
    func keepAliveSilence() async throws {
        try await AppSyncEventsServer.with(AppSyncEventsServer.Options(keepAliveInterval: 0.2, connectionTimeoutMs: 1000)) { server in
            let fixture = try EventsFixture(server: server)
            let channel = try await fixture.events.connect("/default/ka")
            let subscription = EventsCollector(channel.subscribe())
            #expect(await subscription.connected())
            try server.control("stop-ka")
            #expect(await subscription.wait(timeout: .seconds(30)) { $0.states.count >= 3 })
            try server.control("start-ka")
            #expect(await subscription.wait(timeout: .seconds(30)) { $0.states.last == .connected && $0.states.count >= 4 })
            try await fixture.events.post("/default/ka", "after")
            #expect(await subscription.wait { $0.values == ["after"] })
            await channel.close()
            try await fixture.close()
        }
    }

    @Test("a drop (TCP closed, no close frame) and a frame cut in half each end in a reconnect; events after it arrive, none twice")
    func dropAndTruncate() async throws {
        try await AppSyncEventsServer.with { server in
            let fixture = try EventsFixture(server: server)
            let channel = try await fixture.events.connect("/default/drop")
            let subscription = EventsCollector(channel.subscribe())
            #expect(await subscription.connected())
            try await fixture.events.post("/default/drop", 1)
            #expect(await subscription.wait { $0.values.count == 1 })
            try server.control("drop")
            #expect(await subscription.wait { $0.states == [.connecting, .connected, .connecting, .connected] })
            try await fixture.events.post("/default/drop", 2)
            #expect(await subscription.wait { $0.values.count == 2 })
            try server.control("truncate")
            try await fixture.events.post("/default/drop", 3)
            #expect(await subscription.wait { $0.states.count == 6 && $0.states.last == .connected })
            try await fixture.events.post("/default/drop", 4)
            #expect(await subscription.wait { $0.values.last == 4 })
            // 3 was cut in half on the wire: lost, as AppSync would lose it, and never half-decoded.
            #expect(subscription.values == [1, 2, 4])
            // A publish over the socket works on the new connection too.
            try await channel.publish(5)
            #expect(await subscription.wait { $0.values.last == 5 })
            await channel.close()
            try await fixture.close()
        }
    }

    @Test("nothing listening: connect fails with a network error naming the API, in time; closeAll ends every subscription")
    func serverGoneAndCloseAll() async throws {
        let port = try await AppSyncEventsServer.with { server in
            let fixture = try EventsFixture(server: server)
            let first = try await fixture.events.connect("/default/a")
            let second = try await fixture.events.connect("/default/b")
            let one = EventsCollector(first.subscribe())
            let two = EventsCollector(second.subscribe())
            #expect(await one.connected())
            #expect(await two.connected())
            #expect(await fixture.plugin.eventsConnectionCount() == 1)
            await fixture.events.closeAll()
            #expect(await one.wait { $0.end != nil })
            #expect(await two.wait { $0.end != nil })
            #expect(await fixture.plugin.eventsConnectionCount() == 0)
            try await fixture.close()
            return server.port
        }
        let gone = try EventsFixture(
            server: try await AppSyncEventsServer.start(), options: AWSAPIPlugin.Options(reconnect: RealtimeReconnectPolicy(maximumAttempts: 1)))
        try gone.plugin.configure(endpoints: [
            APIEndpointConfiguration(
                name: "chat", endpointType: .events, endpoint: URL(string: "http://127.0.0.1:\(port)/event") ?? URL(fileURLWithPath: "/"),
                region: "us-east-1", authorizationType: .apiKey, apiKey: "da2-test")
        ])
        let started = ContinuousClock.now
        let error = await #expect(throws: APIError.self) { try await gone.events.connect("/default/a") }
        #expect(ContinuousClock.now - started < .seconds(20))
        #expect(error?.errorDescription.contains("chat") == true)
        try await gone.close()
    }
}

/// The fixes of the change's review, each a test that failed before it.
@Suite("AppSync Events: races and deadlines", .serialized)
struct EventsRaceTests {
    @Test("after a reconnect each subscription fetches its authorization again before it subscribes")
    func resubscribeFetchesAuthorizationAgain() async throws {
        try await AppSyncEventsServer.with(.everyMode) { server in
            let fetches = Locked(0)
            let fixture = try EventsFixture(
                server: server, factory: APIAuthProviderFactory(oidc: CountingToken(token: "oidc-token-1", count: fetches)))
            let channel = try await fixture.events.connect("/default/refetch")
            let subscription = EventsCollector(channel.subscribe(options: EventsOptions(authMode: .openIDConnect)))
            #expect(await subscription.connected())
            #expect(fetches.value == 1)
            try server.control("drop")
            #expect(await subscription.wait { $0.states == [.connecting, .connected, .connecting, .connected] })
            #expect(fetches.value == 2)
            try await fixture.events.post("/default/refetch", "after")
            #expect(await subscription.wait { $0.values == ["after"] })
            await channel.close()
            try await fixture.close()
        }
    }

    @Test("a channel closed while its subscription is still fetching authorization ends that subscription; the socket closes")
    func closeWhileSubscribing() async throws {
        try await AppSyncEventsServer.with(.everyMode) { server in
            let release = Locked<CheckedContinuation<Void, Never>?>(nil)
            let fixture = try EventsFixture(server: server, factory: APIAuthProviderFactory(oidc: GatedToken(token: "oidc-token-1", gate: release)))
            let channel = try await fixture.events.connect("/default/race")
            let subscription = EventsCollector(channel.subscribe(options: EventsOptions(authMode: .openIDConnect)))
            #expect(await eventually { release.value != nil })
            await channel.close()
            release.withLock { $0?.resume() }
            #expect(await subscription.wait { $0.end != nil })
            #expect(subscription.error == nil)
            #expect(await subscription.wait { _ in (try? server.state().connections) == 0 })
            #expect(try server.state().subscriptions == 0)
            try await fixture.close()
        }
    }

    @Test("a publish while the socket is down fails within the acknowledgement timeout, saying it was not sent; a cancelled one fails at once")
    func publishDeadlineAndCancel() async throws {
        try await AppSyncEventsServer.with { server in
            let fixture = try EventsFixture(
                server: server,
                options: AWSAPIPlugin.Options(
                    reconnect: RealtimeReconnectPolicy(maximumAttempts: nil, baseDelay: .milliseconds(50)), acknowledgementTimeout: .seconds(1)))
            let channel = try await fixture.events.connect("/default/down")
            // The server gone: the connection retries without end, and nothing can be sent.
            server.stop()
            try await Task.sleep(for: .milliseconds(200))
            let started = ContinuousClock.now
            let error = await #expect(throws: APIError.self) { try await channel.publish("late") }
            #expect(ContinuousClock.now - started < .seconds(10))
            #expect(error?.errorDescription.contains("could not be sent") == true, "\(String(describing: error))")
            let pending = Task { try await channel.publish("cancelled") }
            try await Task.sleep(for: .milliseconds(50))
            pending.cancel()
            let cancelled = await pending.result
            #expect((try? cancelled.get()) == nil)
            await channel.close()
            try await fixture.close()
        }
    }
}

/// A token provider that counts its calls.
struct CountingToken: AmplifyOIDCAuthProvider {
    let token: String
    let count: Locked<Int>
    func getLatestAuthToken() async throws -> String {
        count.withLock { $0 += 1 }
        return token
    }
}

/// A token provider whose first call waits until the test lets it go.
struct GatedToken: AmplifyOIDCAuthProvider {
    let token: String
    let gate: Locked<CheckedContinuation<Void, Never>?>
    func getLatestAuthToken() async throws -> String {
        await withCheckedContinuation { continuation in gate.withLock { $0 = continuation } }
        return token
    }
}

/// A token provider that returns what it is given.
struct EventsToken: AmplifyOIDCAuthProvider, AmplifyFunctionAuthProvider {
    let token: String
    func getLatestAuthToken() async throws -> String { token }
}
