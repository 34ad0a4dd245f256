import Amplify
import AmplifyConcurrency
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

/// The Hub's bounded queue: a full queue slows producers down and loses nothing.
@Suite("Hub overload")
struct HubOverloadTests {
    /// A listener that holds the loop until `open()` is called.
    final class Gate: Sendable {
        private let semaphore = DispatchSemaphore(value: 0)
        private let opened = Locked(false)
        /// Blocks the calling thread (the loop's, inside a listener) until `open()`.
        func wait() { semaphore.wait() }
        func open() {
            opened.withLock { $0 = true }
            semaphore.signal()
        }
        /// Waits without holding a thread of the test's task pool.
        func opening() async {
            while !opened.value { try? await Task.sleep(for: .milliseconds(1)) }
        }
    }

    @Test("a synchronous dispatch into a full queue waits its bounded time, queues anyway, and reports the listener the loop is in")
    func synchronousDispatchWaitsThenQueues() async throws {
        let isolated = try IsolatedHub()
        let hub = isolated.hub
        hub.queueLimit = 10
        hub.overloadWait = .milliseconds(50)
        let gate = Gate()
        let received = Locked<[Int]>([])
        let started = Gate()
        _ = hub.listen(to: .custom("load"), isIncluded: nil, file: "HubOverloadTests.swift", line: 42) { payload in
            guard let number = payload.data as? Int else { return }
            if number == 0 {
                started.open()
                gate.wait()
            }
            received.withLock { $0.append(number) }
        }
        hub.dispatch(to: .custom("load"), payload: HubPayload(eventName: "n", data: 0))
        await started.opening()
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for number in 1...15 { hub.dispatch(to: .custom("load"), payload: HubPayload(eventName: "n", data: number)) }
        }
        #expect(elapsed >= .milliseconds(200))
        #expect(elapsed < .seconds(5))
        #expect(hub.overloadCount == 5)
        let report = try #require(hub.lastOverloadReport)
        #expect(report.contains("registered at HubOverloadTests.swift:42"))
        #expect(report.contains("waited 50 ms for room and queued anyway"))
        gate.open()
        await hub.flush()
        #expect(received.value == Array(0...15))
        #expect(try await isolated.close())
    }

    @Test("dispatchWaitingForRoom suspends while the queue is full and resumes when the loop makes room; nothing is lost")
    func asyncDispatchSuspends() async throws {
        let isolated = try IsolatedHub()
        let hub = isolated.hub
        hub.queueLimit = 5
        let gate = Gate()
        let started = Gate()
        let received = Locked<[Int]>([])
        _ = hub.listen(to: .custom("load"), isIncluded: nil, file: #fileID, line: #line) { payload in
            guard let number = payload.data as? Int else { return }
            if number == 0 {
                started.open()
                gate.wait()
            }
            received.withLock { $0.append(number) }
        }
        hub.dispatch(to: .custom("load"), payload: HubPayload(eventName: "n", data: 0))
        await started.opening()
        let finished = Locked(false)
        let producer = Task {
            for number in 1...20 { await hub.dispatchWaitingForRoom(to: .custom("load"), payload: HubPayload(eventName: "n", data: number)) }
            finished.withLock { $0 = true }
        }
        // (The loop is held in the first listener: the producer cannot finish before the gate opens.)
        #expect(await eventually(within: .seconds(60)) { hub.overloadCount >= 1 })
        #expect(!finished.value)
        gate.open()
        await producer.value
        await hub.flush()
        #expect(received.value == Array(0...20))
        // Five events at most; the flush barrier (a control entry, never held back) may ride on top.
        #expect(hub.peakQueueDepth <= 6)
        #expect(try await isolated.close())
    }

    @Test("a dispatch from the loop thread into a full queue never waits (it would deadlock) and is counted")
    func loopThreadDispatchNeverWaits() async throws {
        let isolated = try IsolatedHub()
        let hub = isolated.hub
        hub.queueLimit = 10
        hub.overloadWait = .seconds(30)
        let received = Locked<[Int]>([])
        let burst = Locked<Duration?>(nil)
        _ = hub.listen(to: .custom("echo"), isIncluded: nil, file: #fileID, line: #line) { payload in
            guard payload.eventName == "burst" else { return }
            // Timed on the loop thread itself, so the test's own scheduling cannot add to it.
            let clock = ContinuousClock()
            let took = clock.measure {
                for number in 0..<100 { hub.dispatch(to: .custom("sink"), payload: HubPayload(eventName: "n", data: number)) }
            }
            burst.withLock { $0 = took }
        }
        _ = hub.listen(to: .custom("sink"), isIncluded: nil, file: #fileID, line: #line) { payload in
            if let number = payload.data as? Int { received.withLock { $0.append(number) } }
        }
        hub.dispatch(to: .custom("echo"), payload: HubPayload(eventName: "burst"))
        // Nothing else is queued until the burst is over: a flush queued while it runs would
        // take one of the ten places (91 overloads; a CI rehearsal failed so).
        #expect(await eventually(within: .seconds(60)) { burst.value != nil })
        await hub.flush()
        let took = try #require(burst.value)
        #expect(took < .seconds(5))
        #expect(received.value == Array(0..<100))
        #expect(hub.overloadCount == 90)
        #expect(try await isolated.close())
    }

    @Test("maxQueuedEvents and overloadWaitMilliseconds are read from the block, with their ranges")
    func configuration() throws {
        let isolated = try IsolatedHub()
        let hub = isolated.hub
        try hub.configure(using: ["maxQueuedEvents": 1000, "overloadWaitMilliseconds": 250] as JSONValue)
        #expect(hub.queueLimit == 1000)
        #expect(hub.overloadWait == .milliseconds(250))
        #expect(throws: ConfigurationValueError.self) { try hub.configure(using: ["maxQueuedEvents": 0] as JSONValue) }
        #expect(throws: ConfigurationValueError.self) { try hub.configure(using: ["maxQueuedEvents": 1e20] as JSONValue) }
        #expect(throws: ConfigurationValueError.self) { try hub.configure(using: ["overloadWaitMilliseconds": -1] as JSONValue) }
        Task { _ = try? await isolated.close() }
    }
}
