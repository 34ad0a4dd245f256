import Amplify
import AmplifyAnalyticsCore
import AmplifyEventLoop
import Foundation
import Testing

@testable import LocalAnalyticsPlugin

/// A process killed between the sink's append+fsync and the queue's delete, played step by step:
/// the batch is written to the file, the deletion never happens, and a new process (a new queue
/// connection and a new sender) flushes again.
@Suite("Local analytics: the hand-off from queue to file is idempotent")
struct HandOffIdempotenceTests {
    private func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("local-analytics-\(UUID().uuidString)").path
    }

    private func ids(_ path: String) -> [Int] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap {
            (try? JSONDecoder().decode(JSONValue.self, from: Data($0.utf8)))?["id"]?.intValue
        }
    }

    @Test("a batch appended and synced but not deleted before a kill is not appended again by the next process")
    func killBetweenAppendAndDelete() async throws {
        let loop = try EventLoop(name: "hand-off")
        let directory = folder()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let queuePath = directory + "/queue.sqlite"
        let file = directory + "/events.jsonl"
        // First process: ten records; the flush writes them, then dies before deleting them.
        let first = try DurableEventQueue(path: queuePath)
        for index in 1...10 { try await first.append(AnalyticsRecord(name: "e\(index)")) }
        let batch = try await first.nextBatch(limit: 100)
        let sender = JSONLinesSender(path: file, maxFileBytes: 1 << 20, maxFiles: 2, fileSystem: loop.fileSystem)
        #expect(await sender.send(batch) == Array(repeating: .accepted, count: 10))
        await first.close()
        #expect(ids(file) == Array(1...10))
        // Second process: the same queue file, a new sender; it flushes, then records more.
        let second = try DurableEventQueue(path: queuePath)
        let engine = try AnalyticsEngine(
            queue: second, sender: JSONLinesSender(path: file, maxFileBytes: 1 << 20, maxFiles: 2, fileSystem: loop.fileSystem),
            batchSize: 4, loop: loop, dispatch: { _, _ in })
        let summary = await engine.flush()
        #expect(summary.sent == 10 && summary.waiting == 0)
        for index in 11...13 { try await engine.recordDurably(BasicAnalyticsEvent(name: "e\(index)")) }
        #expect(await engine.flush().sent == 3)
        #expect(ids(file) == Array(1...13))
        await engine.close()
        try loop.shutdown()
    }

    @Test("a new queue whose ids start again at 1 is not mistaken for records already in the file")
    func recreatedQueueIsNotSkipped() async throws {
        let loop = try EventLoop(name: "hand-off")
        let directory = folder()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/events.jsonl"
        for generation in 1...2 {
            let queue = try DurableEventQueue(path: directory + "/queue-\(generation).sqlite")
            for index in 1...5 { try await queue.append(AnalyticsRecord(name: "g\(generation)-e\(index)")) }
            let engine = try AnalyticsEngine(
                queue: queue, sender: JSONLinesSender(path: file, maxFileBytes: 1 << 20, maxFiles: 2, fileSystem: loop.fileSystem),
                batchSize: 100, loop: loop, dispatch: { _, _ in })
            #expect(await engine.flush().sent == 5)
            await engine.close()
        }
        #expect(ids(file) == Array(1...5) + Array(1...5))
        try loop.shutdown()
    }
}
