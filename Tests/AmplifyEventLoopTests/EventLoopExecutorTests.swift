import AmplifyEventLoop
import AmplifyTestKit
import Testing

/// An actor whose every job runs on the loop thread.
private actor LoopCounter {
    nonisolated let unownedExecutor: UnownedSerialExecutor
    private let loop: EventLoop
    private(set) var count = 0
    private(set) var offLoopRuns = 0

    init(loop: EventLoop) {
        self.loop = loop
        unownedExecutor = loop.executor.asUnownedSerialExecutor()
    }

    func increment() {
        if !loop.inEventLoop { offLoopRuns += 1 }
        count += 1
    }
}

@Suite("EventLoopExecutor")
struct EventLoopExecutorTests {
    @Test("an actor on the loop executor runs every job on the loop thread, serially")
    func actorRunsOnLoop() async throws {
        let loop = try EventLoop()
        let counter = LoopCounter(loop: loop)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<1_000 { group.addTask { await counter.increment() } }
        }
        #expect(await counter.count == 1_000)
        #expect(await counter.offLoopRuns == 0)
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }
}
