import Amplify
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

@Suite("Hub whose loop shuts down under it")
struct HubLoopShutdownTests {
    /// `body`'s result, or `nil` if it takes longer than `seconds` (the test then fails instead of
    /// hanging the run).
    private func within<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async -> T) async -> T? {
        await withTaskGroup(of: T?.self) { group in
            group.addTask { await body() }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    @Test("when its loop shuts down without a reset, the Hub delivers what was queued, ends its streams, and flush no longer waits")
    func loopShutdownClosesTheHub() async throws {
        let loop = try EventLoop(name: "hub-dies")
        let hub = DefaultHubPlugin(loop: loop)
        let heard = Counter()
        hub.listen(to: .auth, isIncluded: nil, file: #fileID, line: #line) { _ in heard.increment() }
        let stream = hub.events(on: .auth, isIncluded: nil, bufferingPolicy: .unbounded)
        for _ in 0..<100 { hub.dispatch(to: .auth, payload: HubPayload(eventName: "before")) }
        try loop.shutdown()
        #expect(hub.isClosed)
        #expect(heard.value == 100)
        let streamed = await within(5) {
            var count = 0
            for await _ in stream { count += 1 }
            return count
        }
        #expect(streamed == 100)
        hub.dispatch(to: .auth, payload: HubPayload(eventName: "after"))
        let flushed: Bool? = await within(5) {
            await hub.flush()
            return true
        }
        #expect(flushed == true)
        #expect(heard.value == 100)
    }
}
