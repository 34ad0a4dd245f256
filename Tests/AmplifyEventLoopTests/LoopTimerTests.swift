import AmplifyConcurrency
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

@Suite("LoopTimer")
struct LoopTimerTests {
    @Test("a one-shot timer fires once, on the loop thread, no earlier than its delay")
    func oneShotFiresOnce() async throws {
        let loop = try EventLoop()
        let fired = Counter()
        let onLoop = Flag()
        let start = ContinuousClock.now
        let elapsed = Locked<Duration?>(nil)
        try loop.scheduleTimer(after: .milliseconds(50)) {
            fired.increment()
            onLoop.set(loop.inEventLoop)
            elapsed.withLock { $0 = ContinuousClock.now - start }
        }
        // Until it fired (a loaded machine may give the loop no turn for a while), then a while more.
        #expect(await eventually(within: .seconds(60)) { fired.value >= 1 })
        try await Task.sleep(for: .milliseconds(100))
        try loop.shutdown()
        #expect(fired.value == 1)
        #expect(onLoop.value)
        #expect((elapsed.withLock { $0 } ?? .zero) >= .milliseconds(49))
    }

    @Test("a repeating timer fires until cancelled, then never again")
    func repeatingUntilCancelled() async throws {
        let loop = try EventLoop()
        let fired = Counter()
        let timer = try loop.scheduleTimer(after: .milliseconds(5), repeating: .milliseconds(5)) {
            fired.increment()
        }
        #expect(await eventually(within: .seconds(60)) { fired.value >= 3 })
        timer.cancel()
        _ = try loop.submitAndWait {}  // the cancel has reached the loop
        let atCancel = fired.value
        try await Task.sleep(for: .milliseconds(60))
        try loop.shutdown()
        #expect(atCancel >= 3)
        #expect(fired.value == atCancel)
        #expect(timer.isCancelled)
    }

    @Test("a timer cancelled before it fires never fires")
    func cancelledBeforeFiring() async throws {
        let loop = try EventLoop()
        let fired = Flag()
        // The loop is held while the timer is scheduled and cancelled, so a slow machine cannot
        // let its 30 ms pass in between.
        let hold = DispatchSemaphore(value: 0)
        try loop.execute { hold.wait() }
        let timer = try loop.scheduleTimer(after: .milliseconds(30)) { fired.set() }
        timer.cancel()
        hold.signal()
        try await Task.sleep(for: .milliseconds(80))
        try loop.shutdown()
        #expect(!fired.value)
        #expect(loop.loopClosedCleanly)
    }
}
