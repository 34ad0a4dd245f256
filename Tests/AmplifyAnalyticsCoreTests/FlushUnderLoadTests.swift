import Amplify
import AmplifyAnalyticsCore
import AmplifyConcurrency
import AmplifyEventLoop
import Foundation
import Testing

@Suite("Analytics engine: flushing under sustained recording")
struct FlushUnderLoadTests {
    @Test("a flush during sustained recording takes what was queued at its start and finishes while recording goes on")
    func flushFinishesUnderLoad() async throws {
        // The producer records as fast as it can for as long as the flush takes; Hub events are
        // counted, not kept (keeping each one grew the test's memory by ~150 MB/s).
        let fixture = try AnalyticsEngineTests.Fixture(batchSize: 500, keepsHubEvents: false)
        let engine = fixture.engine
        let stop = Locked(false)
        let recorded = Locked(0)
        let producer = Task.detached {
            var index = 0
            while !stop.value {
                for _ in 0..<50 {
                    engine.record(BasicAnalyticsEvent(name: "e\(index)"))
                    index += 1
                }
                recorded.withLock { $0 = index }
                await Task.yield()
            }
        }
        // Recording is under way at full rate.
        while recorded.value < 5_000 { try await Task.sleep(for: .milliseconds(5)) }
        let before = recorded.value
        let finished = Locked<FlushSummary?>(nil)
        let flush = Task {
            let summary = await engine.flush()
            finished.withLock { $0 = summary }
        }
        // Before the fix it never finished; a generous bound for a sanitizer on a loaded machine.
        let deadline = ContinuousClock.now + .seconds(120)
        while finished.value == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        let whileRecording = finished.value
        stop.withLock { $0 = true }
        await producer.value
        await flush.value
        #expect(whileRecording != nil, "the flush did not finish while recording went on")
        // It delivered at least what had been recorded before it started, in order.
        #expect((whileRecording?.sent ?? 0) >= before)
        let names = fixture.sender.delivered.value.map(\.name)
        #expect(names.prefix(before) == ArraySlice((0..<before).map { "e\($0)" }))
        // What it recorded beyond what memory may hold was refused, not kept.
        #expect(engine.heldRecords <= 100_000)
        try await fixture.close()
    }
}
