import Amplify
import AmplifyAnalyticsCore
import AmplifyConcurrency
import Foundation
import Testing

/// A sender that records what it was given and answers from a script.
final class ScriptedSender: AnalyticsEventSender {
    let delivered = Locked<[AnalyticsRecord]>([])
    let calls = Locked(0)
    let answer: @Sendable (QueuedRecord) -> RecordOutcome

    init(_ answer: @escaping @Sendable (QueuedRecord) -> RecordOutcome = { _ in .accepted }) {
        self.answer = answer
    }

    func send(_ batch: [QueuedRecord]) async -> [RecordOutcome] {
        calls.withLock { $0 += 1 }
        let outcomes = batch.map(answer)
        delivered.withLock { list in
            for (queued, outcome) in zip(batch, outcomes) where outcome == .accepted { list.append(queued.record) }
        }
        return outcomes
    }
}

func temporaryQueuePath() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("queue-\(UUID().uuidString).sqlite").path
}

@Suite("Durable analytics queue")
struct DurableEventQueueTests {
    @Test("records come out in recording order, in batches of the asked size, and accepted ones are deleted")
    func orderAndBatches() async throws {
        let queue = try DurableEventQueue(path: temporaryQueuePath())
        for index in 1...25 { try await queue.append(AnalyticsRecord(name: "e\(index)")) }
        let first = try await queue.nextBatch(limit: 10)
        #expect(first.map(\.record.name) == (1...10).map { "e\($0)" })
        let second = try await queue.nextBatch(after: first.last?.id ?? 0, limit: 10)
        #expect(second.map(\.record.name) == (11...20).map { "e\($0)" })
        try await queue.apply(first.map { _ in .accepted }, to: first)
        #expect(try await queue.counts().waiting == 15)
        #expect(try await queue.nextBatch(limit: 1).first?.record.name == "e11")
        await queue.close()
    }

    @Test("appends from many tasks at once are all stored, each task's in its own order")
    func concurrentAppends() async throws {
        let queue = try DurableEventQueue(path: temporaryQueuePath())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for producer in 0..<8 {
                group.addTask {
                    for index in 0..<200 { try await queue.append(AnalyticsRecord(name: "p\(producer)-\(index)")) }
                }
            }
            try await group.waitForAll()
        }
        let all = try await queue.nextBatch(limit: 10_000).map(\.record.name)
        #expect(all.count == 1_600)
        for producer in 0..<8 {
            #expect(all.filter { $0.hasPrefix("p\(producer)-") } == (0..<200).map { "p\(producer)-\($0)" })
        }
        await queue.close()
    }

    @Test("a refused record is retried until maxAttempts, then set aside with its reason; 'not sent' costs no attempt")
    func retryAndSetAside() async throws {
        let queue = try DurableEventQueue(path: temporaryQueuePath(), maxAttempts: 3)
        try await queue.append(AnalyticsRecord(name: "poison"))
        try await queue.append(AnalyticsRecord(name: "fine"))
        for round in 1...3 {
            let batch = try await queue.nextBatch(limit: 10)
            let outcomes: [RecordOutcome] = batch.map { $0.record.name == "poison" ? .rejected("bad schema") : .notSent("offline") }
            let applied = try await queue.apply(outcomes, to: batch)
            #expect(applied.setAside == (round == 3 ? 1 : 0))
        }
        let counts = try await queue.counts()
        #expect(counts.waiting == 1 && counts.setAside == 1)
        let aside = try await queue.setAside()
        #expect(aside.map(\.record.record.name) == ["poison"])
        #expect(aside.first?.reason == "bad schema")
        #expect(aside.first?.record.attempts == 3)
        #expect(try await queue.nextBatch(limit: 10).map { "\($0.record.name):\($0.attempts)" } == ["fine:0"])
        await queue.close()
    }

    @Test("at the size cap new records are refused with a clear error and stored ones are kept")
    func sizeCap() async throws {
        let queue = try DurableEventQueue(path: temporaryQueuePath(), maxQueuedEvents: 3)
        for index in 1...3 { try await queue.append(AnalyticsRecord(name: "kept\(index)")) }
        await #expect(throws: AnalyticsQueueError.full(limit: 3)) { try await queue.append(AnalyticsRecord(name: "refused")) }
        #expect("\(AnalyticsQueueError.full(limit: 3))".contains("maxQueuedEvents"))
        #expect(try await queue.nextBatch(limit: 10).map(\.record.name) == ["kept1", "kept2", "kept3"])
        let batch = try await queue.nextBatch(limit: 1)
        try await queue.apply([.accepted], to: batch)
        try await queue.append(AnalyticsRecord(name: "fits now"))
        #expect(try await queue.counts().waiting == 3)
        await queue.close()
    }

    @Test("a queue reopened from its file still holds its records, counts and set-aside ones")
    func survivesReopen() async throws {
        let path = temporaryQueuePath()
        let first = try DurableEventQueue(path: path, maxAttempts: 1)
        for index in 1...4 { try await first.append(AnalyticsRecord(name: "r\(index)")) }
        let batch = try await first.nextBatch(limit: 1)
        try await first.apply([.rejected("no")], to: batch)
        await first.close()
        let second = try DurableEventQueue(path: path, maxAttempts: 1)
        let counts = try await second.counts()
        #expect(counts.waiting == 3 && counts.setAside == 1)
        #expect(try await second.nextBatch(limit: 10).map(\.record.name) == ["r2", "r3", "r4"])
        await second.close()
    }
}
