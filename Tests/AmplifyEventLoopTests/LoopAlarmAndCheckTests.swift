import AmplifyConcurrency
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

/// Holds loop handles between closures run on the loop. @unchecked Sendable: the handles are
/// created, used and closed on the loop thread only.
private final class LoopHandles: @unchecked Sendable {
    var alarm: LoopAlarm?
    var other: LoopAlarm?
    var check: LoopCheck?
}

@Suite("LoopAlarm and LoopCheck")
struct LoopAlarmAndCheckTests {
    @Test("an alarm moved before it goes off goes off once, at its last setting, on the loop thread")
    func alarmMovedGoesOffOnce() async throws {
        let loop = try EventLoop()
        let handles = LoopHandles()
        let fired = Counter()
        let onLoop = Flag()
        let started = ContinuousClock.now
        try loop.execute {
            handles.alarm = try? LoopAlarm(loop: loop) {
                fired.increment()
                onLoop.set(loop.inEventLoop)
            }
            handles.alarm?.set(afterMilliseconds: 600_000)
            handles.alarm?.set(afterMilliseconds: 20)
        }
        #expect(await eventually(within: .seconds(30)) { fired.value == 1 })
        // Long before the first setting: the second replaced it.
        #expect(ContinuousClock.now - started < .seconds(60))
        _ = try loop.submitAndWait {}
        #expect(fired.value == 1)
        #expect(onLoop.value)
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }

    @Test("a cleared alarm does not go off; set again, it does")
    func clearedAlarmStaysQuiet() async throws {
        let loop = try EventLoop()
        let handles = LoopHandles()
        let cleared = Counter()
        let witness = Flag()
        try loop.execute {
            handles.alarm = try? LoopAlarm(loop: loop) { cleared.increment() }
            handles.alarm?.set(afterMilliseconds: 10)
            handles.alarm?.clear()
            // Goes off after the cleared setting would have.
            handles.other = try? LoopAlarm(loop: loop) { witness.set() }
            handles.other?.set(afterMilliseconds: 100)
        }
        #expect(await eventually(within: .seconds(30)) { witness.value })
        _ = try loop.submitAndWait {}
        #expect(cleared.value == 0)
        try loop.execute { handles.alarm?.set(afterMilliseconds: 1) }
        #expect(await eventually(within: .seconds(30)) { cleared.value == 1 })
        try loop.execute {
            handles.alarm?.close()
            handles.alarm = nil
        }
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }

    @Test("a check runs at the end of the turn it was started in, after that turn's work, until stopped")
    func checkRunsAtTheEndOfTheTurn() async throws {
        let loop = try EventLoop()
        let handles = LoopHandles()
        let log = Locked<[String]>([])
        try loop.execute {
            handles.check = try? LoopCheck(loop: loop) {
                log.withLock { $0.append("check") }
                handles.check?.stop()
            }
            log.withLock { $0.append("a") }
            handles.check?.start()
            handles.check?.start()  // started already: still once per turn
            log.withLock { $0.append("b") }
        }
        _ = try loop.submitAndWait {}
        try loop.execute { log.withLock { $0.append("c") } }
        _ = try loop.submitAndWait {}
        _ = try loop.submitAndWait {}
        #expect(log.value == ["a", "b", "check", "c"])
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }

    @Test("shutdown closes a started check and a set alarm, and the loop closes cleanly")
    func shutdownClosesThem() async throws {
        let loop = try EventLoop()
        let handles = LoopHandles()
        let checks = Counter()
        _ = try loop.submitAndWait {
            handles.check = try? LoopCheck(loop: loop) { checks.increment() }
            handles.check?.start()
            handles.alarm = try? LoopAlarm(loop: loop) {}
            handles.alarm?.set(afterMilliseconds: 600_000)
        }
        #expect(await eventually(within: .seconds(30)) { checks.value >= 1 })
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }
}
