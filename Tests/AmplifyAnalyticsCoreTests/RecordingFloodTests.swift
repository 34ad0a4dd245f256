import Amplify
import AmplifyAnalyticsCore
import Testing

@Suite("Analytics engine: recording faster than the queue stores")
struct RecordingFloodTests {
    @Test("at most maxQueuedEvents records wait in memory; the rest are refused at once with .full, and the first ones are stored in order")
    func heldRecordsAreBounded() async throws {
        let limit = 1000
        let count = 50_000
        let fixture = try AnalyticsEngineTests.Fixture(batchSize: 500, maxQueuedEvents: limit, keepsHubEvents: false)
        let engine = fixture.engine
        // Synchronous records outrun SQLite: without the bound every one of them waited in memory.
        var peak = 0
        for index in 0..<count {
            engine.record(BasicAnalyticsEvent(name: "e\(index)"))
            peak = max(peak, engine.heldRecords)
        }
        #expect(peak <= limit, "\(peak) records were held in memory, over the limit of \(limit)")
        let deadline = ContinuousClock.now + .seconds(60)
        while engine.heldRecords > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(engine.heldRecords == 0)
        // Every record is accounted for: the first `limit` stored, each other one refused on the Hub.
        #expect(fixture.hubRefusals.value == count - limit)
        let summary = await engine.flush()
        #expect(summary.sent == limit)
        #expect(fixture.sender.delivered.value.map(\.name) == (0..<limit).map { "e\($0)" })
        // Once the queue has room again, recording is accepted again.
        try await engine.recordDurably(BasicAnalyticsEvent(name: "after"))
        #expect(await engine.flush().sent == 1)
        try await fixture.close()
    }
}
