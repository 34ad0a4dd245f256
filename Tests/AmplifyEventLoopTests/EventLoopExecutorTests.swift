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

/// A nonisolated async function that does not suspend: where it runs is the caller's executor's
/// business. (Not inlined, so each call is a real call the runtime may switch executors for.)
@inline(never)
private func runsOnLoop(_ loop: EventLoop) async -> Bool { loop.inEventLoop }

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

    @Test("as a task executor preference it runs the task's code on the loop thread, across suspensions, and off it again after")
    func taskExecutorPreference() async throws {
        let loop = try EventLoop()
        let onLoop = await withTaskExecutorPreference(loop.taskExecutor) { () async -> [Bool] in
            var seen = [loop.inEventLoop]
            for _ in 0..<3 {
                await Task.yield()
                try? await Task.sleep(for: .milliseconds(1))
                seen.append(loop.inEventLoop)
            }
            return seen
        }
        #expect(onLoop == [true, true, true, true])
        #expect(!loop.inEventLoop)
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }

    // Before the task executor was a type of its own, the loop's serial executor was also the task
    // executor and ran every job isolated to itself: each call to a nonisolated async function then
    // left that "actor" and made a job (and a wake-up of the loop) of its own, 18 per API query.
    @Test("a task preferring the loop's task executor calls nonisolated async functions on the loop without a job each")
    func nonisolatedCallsMakeNoJobs() async throws {
        let loop = try EventLoop()
        let jobsBefore = loop.taskExecutor.jobCount
        let allOnLoop = await withTaskExecutorPreference(loop.taskExecutor) { () async -> Bool in
            var all = loop.inEventLoop
            for _ in 0..<1_000 { all = await runsOnLoop(loop) && all }
            return all
        }
        #expect(allOnLoop)
        // One job to start on the loop; the 1000 calls add none.
        #expect(loop.taskExecutor.jobCount - jobsBefore < 10)
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }
}
