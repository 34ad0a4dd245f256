import Amplify
import AmplifyEventLoop
import CoreMetrics
import Foundation
import MetricsTestKit
import Testing

@Suite("Hub metrics")
struct HubMetricsTests {
    @Test("dispatched events and listener calls are counted, the queue depth is recorded per drain, and a slow listener is counted once")
    func countsDeliveriesDepthAndSlowListeners() async throws {
        let metrics = TestMetrics()
        let loop = try EventLoop(name: "hub-metrics")
        let hub = DefaultHubPlugin(loop: loop, metricsFactory: metrics)
        // No listener here is slow; a loop thread descheduled on a loaded machine must not make one look so.
        hub.slowListenerThreshold = .seconds(3600)
        hub.listen(to: .auth, isIncluded: nil, file: #fileID, line: #line) { _ in }
        hub.listen(to: .auth, isIncluded: { $0.eventName == "wanted" }, file: #fileID, line: #line) { _ in }
        hub.listen(to: .custom("jobs"), eventName: "run", file: #fileID, line: #line) { _ in }
        for index in 0..<100 { hub.dispatch(to: .auth, payload: HubPayload(eventName: index.isMultiple(of: 10) ? "wanted" : "other")) }
        for _ in 0..<5 { hub.dispatch(to: .custom("jobs"), payload: HubPayload(eventName: "run")) }
        hub.dispatch(to: .storage, payload: HubPayload(eventName: "nobody listens"))
        await hub.flush()
        #expect(try metrics.expectCounter(AmplifyMetrics.hubDispatched).totalValue == 106)
        // Every dispatch is counted, so with a backend every event is wanted.
        #expect(hub.wantsEvents(on: .storage))
        // 100 to the first listener, 10 past the filter, 5 by event name.
        #expect(try metrics.expectCounter(AmplifyMetrics.hubDelivered).totalValue == 115)
        let depths = try metrics.expectGauge(AmplifyMetrics.hubQueueDepth).values
        #expect(!depths.isEmpty)
        #expect(depths.allSatisfy { $0 >= 1 })
        // Registrations travel in the queue too: 3 adds, 105 events, 1 flush entry; the event
        // nobody listens to is counted as dispatched but never queued.
        #expect(depths.reduce(0, +) == 109)

        hub.slowListenerThreshold = .milliseconds(20)
        hub.listen(to: .custom("slow"), isIncluded: nil, file: #fileID, line: #line) { _ in usleep(300_000) }
        hub.dispatch(to: .custom("slow"), payload: HubPayload(eventName: "a"))
        hub.dispatch(to: .custom("slow"), payload: HubPayload(eventName: "b"))
        await hub.flush()
        #expect(try metrics.expectCounter(AmplifyMetrics.hubSlowListeners).totalValue == 1)
        await hub.reset()
        try loop.shutdown()
    }

    @Test("with swift-metrics' no-op factory the Hub makes no metric objects")
    func noBackendNoObjects() async throws {
        #expect(AmplifyMetrics.activeFactory(NOOPMetricsHandler.instance) == nil)
        // No backend is bootstrapped in the test process: the default is the no-op factory.
        #expect(AmplifyMetrics.activeFactory() == nil)
    }
}
