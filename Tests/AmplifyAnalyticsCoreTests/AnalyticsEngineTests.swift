import Amplify
import AmplifyAnalyticsCore
import AmplifyConcurrency
import AmplifyEventLoop
import Foundation
import Testing

@Suite("Analytics engine")
struct AnalyticsEngineTests {
    /// An engine on its own loop whose Hub events are kept in a list.
    struct Fixture {
        let loop: EventLoop
        let sender: ScriptedSender
        let engine: AnalyticsEngine
        let hub = Locked<[(String, any Sendable)]>([])
        /// How many refusals (`Analytics.record` with an error) the Hub was sent.
        let hubRefusals = Locked(0)

        /// With `keepsHubEvents` false only refusals are counted, so a test recording millions
        /// of events does not keep millions of Hub events.
        init(
            autoFlush: Duration? = nil, batchSize: Int = 100, maxAttempts: Int = 5, maxQueuedEvents: Int = 100_000, keepsHubEvents: Bool = true,
            answer: @escaping @Sendable (QueuedRecord) -> RecordOutcome = { _ in .accepted }
        ) throws {
            loop = try EventLoop(name: "analytics-test")
            sender = ScriptedSender(answer)
            let hub = hub
            let hubRefusals = hubRefusals
            engine = try AnalyticsEngine(
                queue: DurableEventQueue(path: temporaryQueuePath(), maxAttempts: maxAttempts, maxQueuedEvents: maxQueuedEvents),
                sender: sender, batchSize: batchSize, autoFlushInterval: autoFlush, loop: loop,
                dispatch: { name, data in
                    if data is AnalyticsError { hubRefusals.withLock { $0 += 1 } }
                    if keepsHubEvents { hub.withLock { $0.append((name, data)) } }
                })
        }

        func close() async throws {
            await engine.close()
            try loop.shutdown()
        }
    }

    @Test("fire-and-forget records are stored in call order; a flush delivers them in that order and reports on the Hub")
    func orderAndHub() async throws {
        let fixture = try Fixture(batchSize: 7)
        for index in 1...50 { fixture.engine.record(BasicAnalyticsEvent(name: "e\(index)")) }
        let summary = await fixture.engine.flush()
        #expect(summary.sent == 50 && summary.waiting == 0)
        #expect(fixture.sender.delivered.value.map(\.name) == (1...50).map { "e\($0)" })
        #expect(fixture.sender.calls.value == 8)
        let names = fixture.hub.value.map(\.0)
        #expect(names.filter { $0 == HubPayload.EventName.Analytics.record }.count == 50)
        #expect(names.last == HubPayload.EventName.Analytics.flushEvents)
        #expect((fixture.hub.value.last?.1 as? FlushSummary)?.sent == 50)
        try await fixture.close()
    }

    @Test("global properties and the identified user are on every later event; an event's own property wins; unregister removes")
    func globalPropertiesAndUser() async throws {
        let fixture = try Fixture()
        fixture.engine.registerGlobalProperties(["app": "orders", "version": 3, "beta": true])
        fixture.engine.identifyUser("user-42")
        try await fixture.engine.recordDurably(BasicAnalyticsEvent(name: "first", properties: ["version": 4, "total": 9.5]))
        fixture.engine.unregisterGlobalProperties(["beta"])
        try await fixture.engine.recordDurably(BasicAnalyticsEvent(name: "second"))
        fixture.engine.unregisterGlobalProperties(nil)
        try await fixture.engine.recordDurably(BasicAnalyticsEvent(name: "third"))
        await fixture.engine.flush()
        let delivered = fixture.sender.delivered.value
        #expect(
            delivered[0]
                == AnalyticsRecord(
                    name: "first", timestamp: delivered[0].timestamp, attributes: ["app": "orders", "beta": "true"],
                    metrics: ["version": 4, "total": 9.5], userId: "user-42"))
        #expect(delivered[1].attributes == ["app": "orders"] && delivered[1].metrics == ["version": 3])
        #expect(delivered[2].attributes.isEmpty && delivered[2].metrics.isEmpty && delivered[2].userId == "user-42")
        #expect(fixture.hub.value.contains { $0.0 == HubPayload.EventName.Analytics.identifyUser && $0.1 as? String == "user-42" })
        try await fixture.close()
    }

    @Test("while disabled, events are dropped (and a durable record says why); enabled again, they are kept")
    func enableDisable() async throws {
        let fixture = try Fixture()
        fixture.engine.disable()
        fixture.engine.record(BasicAnalyticsEvent(name: "dropped"))
        await #expect(throws: AnalyticsError.self) { try await fixture.engine.recordDurably(BasicAnalyticsEvent(name: "refused")) }
        fixture.engine.enable()
        try await fixture.engine.recordDurably(BasicAnalyticsEvent(name: "kept"))
        await fixture.engine.flush()
        #expect(fixture.sender.delivered.value.map(\.name) == ["kept"])
        try await fixture.close()
    }

    @Test("a record the target keeps refusing is set aside after maxAttempts flushes; the others are delivered")
    func retriesThenSetAside() async throws {
        let fixture = try Fixture(maxAttempts: 2) { $0.record.name == "poison" ? .rejected("schema mismatch") : .accepted }
        try await fixture.engine.recordDurably(BasicAnalyticsEvent(name: "ok1"))
        try await fixture.engine.recordDurably(BasicAnalyticsEvent(name: "poison"))
        try await fixture.engine.recordDurably(BasicAnalyticsEvent(name: "ok2"))
        let first = await fixture.engine.flush()
        #expect(first.sent == 2 && first.refused == 1 && first.setAside == 0 && first.waiting == 1)
        let second = await fixture.engine.flush()
        #expect(second.refused == 1 && second.setAside == 1 && second.waiting == 0 && second.setAsideTotal == 1)
        #expect(try await fixture.engine.queue.setAside().first?.reason == "schema mismatch")
        try await fixture.close()
    }

    @Test("when the target cannot be reached the flush stops, and the events wait for the next one without losing an attempt")
    func unreachableTarget() async throws {
        let reachable = Locked(false)
        let fixture = try Fixture(maxAttempts: 1) { _ in reachable.value ? .accepted : .notSent("connection refused") }
        for index in 1...3 { try await fixture.engine.recordDurably(BasicAnalyticsEvent(name: "e\(index)")) }
        let down = await fixture.engine.flush()
        #expect(down.sent == 0 && down.notSentReason == "connection refused" && down.waiting == 3 && down.setAsideTotal == 0)
        reachable.withLock { $0 = true }
        let up = await fixture.engine.flush()
        #expect(up.sent == 3 && up.waiting == 0)
        try await fixture.close()
    }

    @Test("auto-flush on the loop timer delivers without being asked")
    func autoFlush() async throws {
        let fixture = try Fixture(autoFlush: .milliseconds(200))
        try await fixture.engine.recordDurably(BasicAnalyticsEvent(name: "timed"))
        let deadline = ContinuousClock.now + .seconds(10)
        while fixture.sender.delivered.value.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(fixture.sender.delivered.value.map(\.name) == ["timed"])
        try await fixture.close()
    }
}
