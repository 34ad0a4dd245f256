import Amplify
import AmplifyConcurrency
import Foundation
import Testing

/// A burst grows the batch storage the Hub drains into; once the burst is over the Hub lets that
/// storage go instead of holding the burst's peak memory until `reset()`.
@Suite("Hub memory after a burst")
struct HubBurstMemoryTests {
    @Test("after a burst of 100,000 queued events is delivered, the Hub keeps at most its retained batch capacity")
    func burstStorageIsReleased() async throws {
        let isolated = try IsolatedHub()
        let hub = isolated.hub
        hub.queueLimit = 1_000_000
        let holding = Locked(true)
        let delivered = Locked(0)
        _ = hub.listen(to: .custom("burst"), isIncluded: nil, file: #fileID, line: #line) { _ in
            // The first event holds the loop until the whole burst is queued, so one drain takes it all.
            while holding.value { usleep(1_000) }
            delivered.withLock { $0 += 1 }
        }
        for number in 0..<100_000 { hub.dispatch(to: .custom("burst"), payload: HubPayload(eventName: "n", data: number)) }
        holding.withLock { $0 = false }
        await hub.flush()
        #expect(delivered.value == 100_000)
        #expect(hub.peakQueueDepth >= 50_000, "the burst was not queued at once (peak \(hub.peakQueueDepth)); the test proves nothing")
        // The drain after the burst (the flush, then one event) finds the storage mostly empty.
        hub.dispatch(to: .custom("burst"), payload: HubPayload(eventName: "n", data: -1))
        await hub.flush()
        #expect(hub.keptBatchCapacity <= DefaultHubPlugin.retainedBatchCapacity, "kept \(hub.keptBatchCapacity) entries of storage")
        #expect(try await isolated.close())
    }
}
