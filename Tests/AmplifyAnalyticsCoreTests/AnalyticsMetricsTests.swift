import Amplify
import AmplifyAnalyticsCore
import AmplifyConcurrency
import AmplifyEventLoop
import Foundation
import MetricsTestKit
import Testing

@Suite("Analytics metrics")
struct AnalyticsMetricsTests {
    private let plugin = [("plugin", "testAnalyticsPlugin")]

    private func engine(
        _ metrics: TestMetrics, loop: EventLoop, maxQueuedEvents: Int = 100_000, maxAttempts: Int = 2,
        answer: @escaping @Sendable (QueuedRecord) -> RecordOutcome
    ) throws -> AnalyticsEngine {
        try AnalyticsEngine(
            queue: DurableEventQueue(path: temporaryQueuePath(), maxAttempts: maxAttempts, maxQueuedEvents: maxQueuedEvents),
            sender: ScriptedSender(answer),
            loop: loop, pluginKey: "testAnalyticsPlugin", metricsFactory: metrics, dispatch: { _, _ in })
    }

    @Test("events are counted as queued, sent, refused, set aside and failed to send; the waiting gauge follows each flush")
    func flushOutcomes() async throws {
        let metrics = TestMetrics()
        let loop = try EventLoop(name: "analytics-metrics")
        let reachable = Locked(true)
        let engine = try engine(metrics, loop: loop) { queued in
            guard reachable.value else { return .notSent("connection refused") }
            return queued.record.name == "poison" ? .rejected("schema mismatch") : .accepted
        }
        for name in ["a", "poison", "b"] { try await engine.recordDurably(BasicAnalyticsEvent(name: name)) }
        await engine.flush()
        await engine.flush()
        reachable.withLock { $0 = false }
        try await engine.recordDurably(BasicAnalyticsEvent(name: "c"))
        await engine.flush()
        #expect(try metrics.expectCounter(AmplifyMetrics.analyticsQueued, plugin).totalValue == 4)
        #expect(try metrics.expectCounter(AmplifyMetrics.analyticsSent, plugin).totalValue == 2)
        #expect(try metrics.expectCounter(AmplifyMetrics.analyticsRefused, plugin).totalValue == 2)
        #expect(try metrics.expectCounter(AmplifyMetrics.analyticsSetAside, plugin).totalValue == 1)
        #expect(try metrics.expectCounter(AmplifyMetrics.analyticsFailed, plugin + [("stage", "flush")]).totalValue == 1)
        #expect(try metrics.expectGauge(AmplifyMetrics.analyticsWaiting, plugin).values == [1, 0, 1])
        await engine.close()
        try loop.shutdown()
    }

    @Test("an event that cannot be stored (queue full, recording disabled) is counted as failed at the record stage")
    func recordFailures() async throws {
        let metrics = TestMetrics()
        let loop = try EventLoop(name: "analytics-metrics")
        let engine = try engine(metrics, loop: loop, maxQueuedEvents: 1) { _ in .accepted }
        try await engine.recordDurably(BasicAnalyticsEvent(name: "kept"))
        await #expect(throws: AnalyticsQueueError.self) { try await engine.recordDurably(BasicAnalyticsEvent(name: "over the cap")) }
        engine.disable()
        await #expect(throws: AnalyticsError.self) { try await engine.recordDurably(BasicAnalyticsEvent(name: "while disabled")) }
        #expect(try metrics.expectCounter(AmplifyMetrics.analyticsQueued, plugin).totalValue == 1)
        #expect(try metrics.expectCounter(AmplifyMetrics.analyticsFailed, plugin + [("stage", "record")]).totalValue == 2)
        await engine.close()
        try loop.shutdown()
    }

    @Test("flushAfterRunning waits for a flush under way, then flushes: everything recorded before the call has been sent when it returns")
    func flushAfterRunning() async throws {
        let loop = try EventLoop(name: "analytics-metrics")
        let sender = GatedSender()
        let engine = try AnalyticsEngine(queue: DurableEventQueue(path: temporaryQueuePath()), sender: sender, loop: loop, dispatch: { _, _ in })
        try await engine.recordDurably(BasicAnalyticsEvent(name: "first"))
        let running = Task { await engine.flush() }
        while !sender.started.value { try await Task.sleep(for: .milliseconds(1)) }
        // Stored while the first flush holds its batch: that flush does not take it.
        try await engine.recordDurably(BasicAnalyticsEvent(name: "second"))
        // A plain flush while one runs returns its own empty summary at once.
        #expect(await engine.flush().sent == 0)
        let after = Task { await engine.flushAfterRunning() }
        try await Task.sleep(for: .milliseconds(20))
        sender.open.withLock { $0 = true }
        #expect(await running.value.sent == 1)
        let summary = await after.value
        #expect(summary.sent == 1)
        #expect(summary.waiting == 0)
        #expect(sender.names.value == ["first", "second"])
        await engine.close()
        try loop.shutdown()
    }
}

/// A sender whose first batch waits until the test opens it; it says when that batch arrived.
private final class GatedSender: AnalyticsEventSender {
    let started = Locked(false)
    let open = Locked(false)
    let names = Locked<[String]>([])

    func send(_ batch: [QueuedRecord]) async -> [RecordOutcome] {
        started.withLock { $0 = true }
        while !open.value { try? await Task.sleep(for: .milliseconds(1)) }
        names.withLock { $0 += batch.map(\.record.name) }
        return batch.map { _ in .accepted }
    }
}
