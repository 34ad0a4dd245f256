import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

@Suite("LoopFileSystem.perform")
struct LoopFileSystemWorkTests {
    struct Refused: Error, Equatable {}

    @Test("work runs off the loop thread and its value or error comes back to the caller")
    func valueAndError() async throws {
        let loop = try EventLoop(name: "pool-work")
        let onLoop = try await loop.fileSystem.perform { loop.inEventLoop }
        #expect(!onLoop)
        #expect(try await loop.fileSystem.perform { 6 * 7 } == 42)
        await #expect(throws: Refused.self) { try await loop.fileSystem.perform { () throws -> Int in throw Refused() } }
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<50 { group.addTask { try await loop.fileSystem.perform { index } } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(results.sorted() == Array(0..<50))
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }
}
