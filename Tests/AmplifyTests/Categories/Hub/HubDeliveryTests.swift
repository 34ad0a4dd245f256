import Amplify
import AmplifyConcurrency
import AmplifyTestKit
import Foundation
import Testing

@Suite("Hub delivery")
struct HubDeliveryTests {
    @Test("every listener gets each producer's events in dispatch order, and none is lost")
    func orderAndNoLoss() async throws {
        let isolated = try IsolatedHub()
        let hub = isolated.hub
        let perProducer = 20_000
        let received = (0..<3).map { _ in Locked<[Stamp]>([]) }
        for list in received {
            hub.listen(to: .auth, isIncluded: nil, file: #fileID, line: #line) { payload in
                if let stamp = payload.stamp { list.withLock { $0.append(stamp) } }
            }
        }
        onThreads(2) { producer in
            for sequence in 0..<perProducer {
                hub.dispatch(to: .auth, payload: HubPayload(eventName: "tick", data: Stamp(producer: producer, sequence: sequence)))
            }
        }
        await hub.flush()
        for list in received {
            let stamps = list.value
            #expect(stamps.count == 2 * perProducer)
            for producer in 0..<2 {
                #expect(stamps.filter { $0.producer == producer }.map(\.sequence) == Array(0..<perProducer))
            }
        }
        #expect(try await isolated.close())
    }

    @Test("a listener receives exactly the events dispatched after listen returned")
    func listenStartsAtItsReturn() async throws {
        let isolated = try IsolatedHub()
        let hub = isolated.hub
        let published = Counter()
        let stop = Flag()
        let received = Locked<[Int]>([])
        let producer = Thread {
            var sequence = 0
            while !stop.value {
                sequence += 1
                hub.dispatch(to: .hub, payload: HubPayload(eventName: "n", data: sequence))
                published.increment()
            }
        }
        producer.start()
        while published.value < 5_000 { usleep(100) }
        let before = published.value
        hub.listen(to: .hub, isIncluded: nil, file: #fileID, line: #line) { payload in
            if let value = payload.data as? Int { received.withLock { $0.append(value) } }
        }
        let after = published.value
        while published.value < after + 5_000 { usleep(100) }
        stop.set()
        while producer.isExecuting { usleep(100) }
        await hub.flush()
        let values = received.value
        let first = try #require(values.first)
        // The producer counts an event after dispatching it. Event `before` had been dispatched
        // before listen was called: never seen. Event k starts its dispatch only once k - 1 is
        // counted, so every k >= after + 2 was dispatched after listen returned: all seen. In
        // between, nothing is missing either.
        #expect(first > before)
        #expect(first <= after + 2)
        #expect(values == Array(first..<(first + values.count)))
        #expect(values.last == published.value)
        #expect(try await isolated.close())
    }

    @Test("after removeListener returns, no new call of the listener starts")
    func removeIsImmediate() async throws {
        let isolated = try IsolatedHub()
        let hub = isolated.hub
        let started = Counter()
        let stop = Flag()
        let token = hub.listen(to: .storage, isIncluded: nil, file: #fileID, line: #line) { _ in started.increment() }
        let producer = Thread {
            while !stop.value { hub.dispatch(to: .storage, payload: HubPayload(eventName: "x")) }
        }
        producer.start()
        while started.value < 10_000 { usleep(100) }
        hub.removeListener(token)
        let atRemoval = started.value
        usleep(20_000)
        stop.set()
        while producer.isExecuting { usleep(100) }
        await hub.flush()
        // The loop may have checked the flag and begun one call just before removeListener
        // returned, without that call's first instruction having run yet: at most that one.
        #expect(started.value - atRemoval <= 1)
        #expect(hub.listenerCount == 0)
        #expect(try await isolated.close())
    }

    @Test("a listener can dispatch, listen and remove itself from inside its own call")
    func reentrantListener() async throws {
        let isolated = try IsolatedHub()
        let hub = isolated.hub
        let firstCalls = Counter()
        let second = Locked<[String]>([])
        let token = Locked<UnsubscribeToken?>(nil)
        // Both "start"s must be queued before the first is delivered; otherwise the loop can
        // deliver the first before the test thread dispatches the second, and the second is then
        // rightly seen by the inner listener (the run of stop 22 failed that way).
        let bothQueued = DispatchSemaphore(value: 0)
        let registered = hub.listen(to: .auth, eventName: "start", file: #fileID, line: #line) { _ in
            bothQueued.wait()
            firstCalls.increment()
            hub.listen(to: .auth, isIncluded: nil, file: #fileID, line: #line) { payload in
                second.withLock { $0.append(payload.eventName) }
            }
            hub.dispatch(to: .auth, payload: HubPayload(eventName: "from-inside"))
            if let own = token.value { hub.removeListener(own) }
        }
        token.withLock { $0 = registered }
        hub.dispatch(to: .auth, payload: HubPayload(eventName: "start"))
        hub.dispatch(to: .auth, payload: HubPayload(eventName: "start"))
        bothQueued.signal()
        bothQueued.signal()  // a second call, should the first listener wrongly run twice, must not hang the loop
        await hub.flush()
        await hub.flush()
        #expect(firstCalls.value == 1)
        // The second "start" was queued before the inner listener was added: it sees only what
        // was dispatched after its listen returned.
        #expect(second.value == ["from-inside"])
        #expect(try await isolated.close())
    }

    @Test(
        "an event on a built-in channel nobody listens to is never queued; a listener sees what is dispatched after it is added and nothing after it is removed"
    )
    func eventsNobodyListensToAreNotQueued() async throws {
        let isolated = try IsolatedHub()
        let hub = isolated.hub
        for index in 0..<1_000 { hub.dispatch(to: .storage, payload: HubPayload(eventName: "before-\(index)")) }
        await hub.flush()
        // Only the flush entry went through the queue.
        #expect(hub.peakQueueDepth <= 1)
        let seen = Locked<[String]>([])
        let token = hub.listen(to: .storage, isIncluded: nil, file: #fileID, line: #line) { payload in
            seen.withLock { $0.append(payload.eventName) }
        }
        hub.dispatch(to: .storage, payload: HubPayload(eventName: "while-listening"))
        hub.dispatch(to: .auth, payload: HubPayload(eventName: "other channel"))
        await hub.flush()
        hub.removeListener(token)
        for index in 0..<1_000 { hub.dispatch(to: .storage, payload: HubPayload(eventName: "after-\(index)")) }
        await hub.flush()
        #expect(seen.value == ["while-listening"])
        #expect(hub.peakQueueDepth <= 3)
        #expect(try await isolated.close())
    }

    @Test(
        "wantsEvents says whether a dispatch would reach anybody: not with no listener or stream on the channel, yes while one is there, yes once the Hub is closed (its replacement may)"
    )
    func wantsEventsFollowsListeners() async throws {
        let isolated = try IsolatedHub()
        let hub = isolated.hub
        #expect(!hub.wantsEvents(on: .api))
        let token = hub.listen(to: .api, isIncluded: nil, file: #fileID, line: #line) { _ in }
        #expect(hub.wantsEvents(on: .api))
        #expect(!hub.wantsEvents(on: .storage))
        // A custom channel is always queued.
        #expect(hub.wantsEvents(on: .custom("jobs")))
        hub.removeListener(token)
        #expect(!hub.wantsEvents(on: .api))
        let stream = hub.events(on: .api, isIncluded: nil, bufferingPolicy: .unbounded)
        #expect(hub.wantsEvents(on: .api))
        _ = stream
        #expect(try await isolated.close())
        #expect(hub.wantsEvents(on: .storage))
    }

    @Test("a listener on one channel never sees another channel's events")
    func channelsAreSeparate() async throws {
        let isolated = try IsolatedHub()
        let hub = isolated.hub
        let auth = HubEventRecorder(channel: .auth, hub: hub)
        let custom = HubEventRecorder(channel: .custom("orders"), hub: hub)
        let otherCustom = HubEventRecorder(channel: .custom("payments"), hub: hub)
        for channel in HubChannel.amplifyChannels + [.custom("orders"), .custom("payments"), .custom("x")] {
            hub.dispatch(to: channel, payload: HubPayload(eventName: channel.name))
        }
        await hub.flush()
        #expect(auth.eventNames == ["auth"])
        #expect(custom.eventNames == ["orders"])
        #expect(otherCustom.eventNames == ["payments"])
        #expect(try await isolated.close())
    }

    @Test("eventName listeners and HubFilters pass exactly the payloads they name")
    func filters() async throws {
        let isolated = try IsolatedHub()
        let hub = isolated.hub
        let signedIn = Locked<[String]>([])
        hub.listen(to: .auth, eventName: HubPayload.EventName.Auth.signedIn, file: #fileID, line: #line) { payload in
            signedIn.withLock { $0.append(payload.eventName) }
        }
        let either = HubEventRecorder(
            channel: .auth,
            isIncluded: HubFilters.any(
                filters:
                    HubFilters.forEventName(HubPayload.EventName.Auth.signedOut),
                HubFilters.forEventName(HubPayload.EventName.Auth.sessionExpired)), hub: hub)
        let none = HubEventRecorder(
            channel: .auth,
            isIncluded: HubFilters.all(
                filters:
                    HubFilters.forEventName(HubPayload.EventName.Auth.signedIn),
                HubFilters.forEventName(HubPayload.EventName.Auth.signedOut)), hub: hub)
        for name in [
            HubPayload.EventName.Auth.signedIn, HubPayload.EventName.Auth.signedOut,
            HubPayload.EventName.Auth.sessionExpired, HubPayload.EventName.Auth.userDeleted,
        ] {
            hub.dispatch(to: .auth, payload: HubPayload(eventName: name))
        }
        await hub.flush()
        #expect(signedIn.value == ["Auth.signedIn"])
        #expect(either.eventNames == ["Auth.signedOut", "Auth.sessionExpired"])
        #expect(none.eventNames.isEmpty)
        #expect(try await isolated.close())
    }

    @Test("flush returns only after everything dispatched before it was delivered")
    func flushWaitsForDelivery() async throws {
        let isolated = try IsolatedHub()
        let hub = isolated.hub
        let delivered = Counter()
        hub.listen(to: .analytics, isIncluded: nil, file: #fileID, line: #line) { _ in delivered.increment() }
        for _ in 0..<50_000 { hub.dispatch(to: .analytics, payload: HubPayload(eventName: "e")) }
        await hub.flush()
        #expect(delivered.value == 50_000)
        #expect(try await isolated.close())
    }

    @Test("payload data and context reach the listener as dispatched")
    func payloadContents() async throws {
        let isolated = try IsolatedHub()
        let recorder = HubEventRecorder(channel: .auth, hub: isolated.hub)
        isolated.hub.dispatch(to: .auth, payload: HubPayload(eventName: "e", context: "ctx", data: 42))
        #expect(await recorder.waitForEvents(count: 1))
        let payload = try #require(recorder.payloads.first)
        #expect(payload.context as? String == "ctx")
        #expect(payload.data as? Int == 42)
        #expect(try await isolated.close())
    }

    @Test("a removed listener lets go of what it captured, though its token is kept")
    func removedListenerReleasesCaptures() async throws {
        final class Captured: Sendable {}
        let isolated = try IsolatedHub()
        let hub = isolated.hub
        weak var weakCaptured: Captured?
        var token: UnsubscribeToken?
        do {
            let captured = Captured()
            weakCaptured = captured
            token = hub.listen(to: .api, isIncluded: nil, file: #fileID, line: #line) { _ in _ = captured }
        }
        await hub.flush()
        #expect(weakCaptured != nil)
        if let token { hub.removeListener(token) }
        await hub.flush()
        // The flush resumes from inside the loop's drain, whose batch still holds the removal
        // entry for a moment: the capture goes when that drain ends.
        #expect(await eventually(within: .seconds(30)) { weakCaptured == nil })
        #expect(token != nil)
        #expect(hub.listenerCount == 0)
        #expect(try await isolated.close())
    }

    @Test("a token of another Hub removes nothing; one made by hand with a listener's id removes it, once")
    func tokensFromElsewhere() async throws {
        let isolated = try IsolatedHub()
        let other = try IsolatedHub()
        let received = Counter()
        let token = isolated.hub.listen(to: .auth, isIncluded: nil, file: #fileID, line: #line) { _ in received.increment() }
        let kept = isolated.hub.listen(to: .auth, isIncluded: nil, file: #fileID, line: #line) { _ in }
        other.hub.removeListener(token)
        isolated.hub.removeListener(UnsubscribeToken(channel: .auth, id: UUID()))
        isolated.hub.dispatch(to: .auth, payload: HubPayload(eventName: "still here"))
        await isolated.hub.flush()
        #expect(received.value == 1)
        #expect(isolated.hub.listenerCount == 2)
        // Named on the wrong channel, the listener is still found and removed.
        isolated.hub.removeListener(UnsubscribeToken(channel: .storage, id: token.id))
        isolated.hub.removeListener(token)
        #expect(isolated.hub.listenerCount == 1)
        isolated.hub.dispatch(to: .auth, payload: HubPayload(eventName: "gone"))
        await isolated.hub.flush()
        #expect(received.value == 1)
        isolated.hub.removeListener(kept)
        #expect(isolated.hub.listenerCount == 0)
        #expect(try await isolated.close())
        #expect(try await other.close())
    }

    @Test("every built-in channel has its own slot in the Hub's table, in the order of amplifyChannels, and custom channels none")
    func builtInChannelTable() {
        #expect(HubChannel.amplifyChannels.map(\.builtInIndex) == Array(0..<HubChannel.amplifyChannels.count))
        #expect(HubChannel.custom("x").builtInIndex == nil)
    }
}
