import CoreMetrics

/// The Hub's metric objects, made once for a dispatcher, and only when a metrics backend is
/// bootstrapped (see ``AmplifyMetrics``). The loop thread reports a drain's totals at its end
/// (an event on a channel nobody listens to is counted as it is dispatched, and never queued),
/// so the cost is per drain, not per event. (Package access: HubBenchmark times one drain's report.)
package final class HubMetrics: Sendable {
    let dispatched: Counter
    let delivered: Counter
    let queueDepth: Recorder
    let slowListeners: Counter

    /// The Hub's metrics from `factory`, or `nil` when there is no backend (the no-op factory).
    package static func make(_ factory: (any MetricsFactory)?) -> HubMetrics? {
        AmplifyMetrics.activeFactory(factory).map(HubMetrics.init)
    }

    private init(_ factory: any MetricsFactory) {
        dispatched = Counter(label: AmplifyMetrics.hubDispatched, factory: factory)
        delivered = Counter(label: AmplifyMetrics.hubDelivered, factory: factory)
        queueDepth = Gauge(label: AmplifyMetrics.hubQueueDepth, factory: factory)
        slowListeners = Counter(label: AmplifyMetrics.hubSlowListeners, factory: factory)
    }

    /// One drain: `events` events taken from a queue of `depth` entries, `deliveries` listener
    /// calls.
    package func drained(events: Int, deliveries: Int, depth: Int) {
        queueDepth.record(depth)
        if events > 0 { dispatched.increment(by: events) }
        if deliveries > 0 { delivered.increment(by: deliveries) }
    }
}
