import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

@Suite("LoopTimer: delays beyond the millisecond range")
struct TimerRangeTests {
    @Test("a delay of Int64.max seconds saturates instead of trapping, and the timer does not fire early")
    func hugeDelaySaturates() async throws {
        let loop = try EventLoop()
        let fired = Counter()
        let timer = try loop.scheduleTimer(after: .seconds(Int64.max), repeating: .seconds(Int64.max)) { fired.increment() }
        try await Task.sleep(for: .milliseconds(50))
        timer.cancel()
        try loop.shutdown()
        #expect(fired.value == 0)
    }
}
