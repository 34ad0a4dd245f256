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
        try await Task.sleep(for: .milliseconds(250))
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
        try await Task.sleep(for: .milliseconds(150))
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
        let timer = try loop.scheduleTimer(after: .milliseconds(30)) { fired.set() }
        timer.cancel()
        try await Task.sleep(for: .milliseconds(80))
        try loop.shutdown()
        #expect(!fired.value)
        #expect(loop.loopClosedCleanly)
    }
}
