import AmplifyConcurrency
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

@Suite("EventLoop")
struct EventLoopTests {
    @Test("work submitted from many threads runs on the loop thread, each thread's in order")
    func executeKeepsPerThreadOrder() async throws {
        let loop = try EventLoop()
        let seen = Locked<[Int: [Int]]>([:])
        let onLoop = Counter()
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<4 {
                group.addTask {
                    for index in 0..<2_000 {
                        try? loop.execute {
                            if loop.inEventLoop { onLoop.increment() }
                            seen.withLock { $0[producer, default: []].append(index) }
                        }
                    }
                }
            }
        }
        try loop.shutdown()
        let result = seen.withLock { $0 }
        for producer in 0..<4 { #expect(result[producer] == Array(0..<2_000)) }
        #expect(onLoop.value == 8_000)
        #expect(loop.loopClosedCleanly)
    }

    @Test(
        "shutdown racing threads that submit work: each piece of work runs or is refused, none is lost, and the loop closes cleanly (1000 races; ThreadSanitizer found the wake-up handle read while shutdown cleared it)"
    )
    func shutdownRacingExecute() async throws {
        try await offThePool {
            for _ in 0..<1_000 {
                let loop = try EventLoop(name: "shutdown-race")
                let ran = Counter()
                let refused = Counter()
                onThreads(3) { index in
                    if index == 0 {
                        try? loop.shutdown()
                        return
                    }
                    for _ in 0..<50 {
                        do {
                            try loop.execute { ran.increment() }
                        } catch {
                            refused.increment()
                        }
                    }
                }
                try loop.shutdown()
                #expect(ran.value + refused.value == 100)
                #expect(loop.loopClosedCleanly)
            }
        }
    }

    @Test("work queued from the loop thread runs on a later turn, not inline")
    func executeFromLoopIsDeferred() throws {
        let loop = try EventLoop()
        let order = Locked<[String]>([])
        let done = DispatchSemaphore(value: 0)
        try loop.execute {
            try? loop.execute {
                order.withLock { $0.append("inner") }
                done.signal()
            }
            order.withLock { $0.append("outer end") }
        }
        done.wait()
        try loop.shutdown()
        #expect(order.withLock { $0 } == ["outer end", "inner"])
    }

    @Test("shutdown runs queued work, closes the loop cleanly, then refuses work")
    func shutdownDrainsAndRefuses() throws {
        let loop = try EventLoop()
        let ran = Counter()
        for _ in 0..<100 { try loop.execute { ran.increment() } }
        _ = try loop.scheduleTimer(after: .seconds(3600)) {}
        _ = try LoopWakeup.make(on: loop) {}
        try loop.shutdown()
        #expect(ran.value == 100)
        #expect(loop.isShutDown)
        #expect(loop.loopClosedCleanly)
        #expect(throws: EventLoopError.shutDown) { try loop.execute {} }
        try loop.shutdown()  // a second call does nothing
    }

    @Test("shutdown called on the loop thread is refused with an error, not a hang")
    func shutdownOnLoopThreadThrows() throws {
        let loop = try EventLoop()
        let outcome = try loop.submitAndWait { () -> String in
            do {
                try loop.shutdown()
                return "returned"
            } catch let error as EventLoopError {
                return "\(error)"
            }
        }
        #expect(outcome.contains("called on the event loop's own thread"))
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }

    @Test("a wake-up coalesces signals and its callback drains on the loop thread")
    func wakeupCoalesces() throws {
        let loop = try EventLoop()
        let pending = Counter()
        let drained = Counter()
        let calls = Counter()
        let wakeup = try LoopWakeup.make(on: loop) {
            calls.increment()
            drained.increment(by: pending.take())
        }
        for _ in 0..<10_000 {
            pending.increment()
            wakeup.signal()
        }
        wakeup.close()
        try loop.shutdown()
        #expect(drained.value == 10_000)
        #expect(calls.value <= 10_001)
        #expect(wakeup.signal() == false)
        #expect(loop.loopClosedCleanly)
    }

    @Test("publishToLoopThread makes an earlier store visible to the loop")
    func publishToLoopThread() throws {
        let loop = try EventLoop()
        let flag = Flag()
        flag.setRelaxed()
        loop.publishToLoopThread()
        let seen = try loop.submitAndWait { flag.relaxedValue }
        #expect(seen)
        try loop.shutdown()
    }

    @Test("work queued on the loop thread runs in order on later turns without signalling the wake-up")
    func workQueuedOnTheLoopSignalsNothing() async throws {
        let loop = try EventLoop()
        let order = Locked<[Int]>([])
        let signalsBefore = loop.wakeupSignalCount
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            @Sendable func step(_ index: Int) {
                order.withLock { $0.append(index) }
                if index == 100 { return done.resume() }
                // Queued from inside queued work: never run inline.
                let before = order.withLock { $0.count }
                do { try loop.execute { step(index + 1) } } catch { return done.resume() }
                #expect(order.withLock { $0.count } == before)
            }
            do { try loop.execute { step(0) } } catch { done.resume() }
        }
        #expect(order.withLock { $0 } == Array(0...100))
        // The one execute from this thread signalled; the 100 from the loop thread did not.
        #expect(loop.wakeupSignalCount - signalsBefore == 1)
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }

    @Test("work queued from a timer callback, before the turn's poll, runs without waiting for other events")
    func workQueuedFromATimerRunsPromptly() async throws {
        let loop = try EventLoop()
        let ran = Locked(false)
        try loop.scheduleTimer(after: .milliseconds(1)) {
            try? loop.execute { ran.withLock { $0 = true } }
        }
        // Nothing else happens on the loop: if that turn's poll blocked, the work would wait forever.
        #expect(await eventually(within: .seconds(30)) { ran.withLock { $0 } })
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }
}

@Suite("LoopBound")
struct LoopBoundTests {
    @Test("a value made off the loop is read and changed on its loop's thread, from execute and from a timer")
    func boundValueOnItsLoop() async throws {
        let loop = try EventLoop(name: "loop-bound")
        let bound = LoopBound([Int](), loop: loop)
        let seen = Locked<[Int]>([])
        try loop.submitAndWait { bound.value.append(1) }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = try? loop.scheduleTimer(after: .milliseconds(1)) {
                bound.value.append(2)
                seen.withLock { $0 = bound.value }
                done.resume()
            }
        }
        #expect(seen.value == [1, 2])
        #expect(bound.loop === loop)
        try loop.shutdown()
    }
}
