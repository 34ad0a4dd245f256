import Amplify
import AmplifyConcurrency
import AmplifyTestKit
import Foundation
import Testing

@Suite("Hub event streams")
struct HubEventStreamTests {
    @Test("a stream yields exactly what a closure listener registered at the same moment receives")
    func streamMatchesListener() async throws {
        let isolated = try IsolatedHub()
        let hub = isolated.hub
        let total = 20_000
        let fromListener = Locked<[Stamp]>([])
        hub.listen(to: .auth, isIncluded: nil, file: #fileID, line: #line) { payload in
            if let stamp = payload.stamp { fromListener.withLock { $0.append(stamp) } }
        }
        let stream = hub.events(on: .auth, isIncluded: nil, bufferingPolicy: .unbounded)
        let consumer = Task {
            var seen: [Stamp] = []
            for await payload in stream {
                if let stamp = payload.stamp { seen.append(stamp) }
                if seen.count == total { break }
            }
            return seen
        }
        onThreads(2) { producer in
            for sequence in 0..<(total / 2) {
                hub.dispatch(to: .auth, payload: HubPayload(eventName: "t", data: Stamp(producer: producer, sequence: sequence)))
            }
        }
        await hub.flush()
        let fromStream = await consumer.value
        #expect(fromStream.count == total)
        #expect(fromStream == fromListener.value)
        #expect(try await isolated.close())
    }

    @Test("a bounded stream keeps the newest payloads and counts what it dropped")
    func boundedStreamDrops() async throws {
        let isolated = try IsolatedHub()
        let hub = isolated.hub
        let stream = hub.events(on: .storage, isIncluded: nil, bufferingPolicy: .bufferingNewest(10))
        for index in 0..<100 { hub.dispatch(to: .storage, payload: HubPayload(eventName: "e", data: index)) }
        await hub.flush()
        #expect(stream.droppedCount == 90)
        var iterator = stream.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.data as? Int == 90)
        #expect(try await isolated.close())
    }

    @Test("a stream ends when the Hub is reset, and ending the iteration removes its listener")
    func streamLifecycle() async throws {
        let isolated = try IsolatedHub()
        let hub = isolated.hub
        let stream = hub.events(on: .auth, isIncluded: nil, bufferingPolicy: .unbounded)
        let ended = Task {
            var count = 0
            for await _ in stream { count += 1 }
            return count
        }
        let subscribed = Flag()
        let early = Task {
            let earlyStream = hub.events(on: .auth, isIncluded: nil, bufferingPolicy: .unbounded)
            subscribed.set()
            for await _ in earlyStream { break }
        }
        while !subscribed.value { await Task.yield() }
        hub.dispatch(to: .auth, payload: HubPayload(eventName: "one"))
        await early.value
        await hub.flush()
        #expect(hub.listenerCount == 1)
        #expect(try await isolated.close())
        #expect(await ended.value == 1)
    }
}
