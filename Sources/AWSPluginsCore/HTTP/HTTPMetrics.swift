import Amplify
import AmplifyConcurrency
import CoreMetrics

/// The HTTP client's metric objects (`AmplifyMetrics/httpRequests`, `AmplifyMetrics/httpRequestDuration`,
/// `AmplifyMetrics/httpRetries`), made on first use per service, operation and status and
/// kept. A client has none when no metrics backend is bootstrapped. (Package access:
/// HTTPBenchmark times one attempt's report.)
package final class HTTPMetrics: Sendable {
    private struct Key: Hashable {
        let service: String
        let operation: String
        let status: String
    }

    private let factory: any MetricsFactory
    private let requests = Locked<[Key: Counter]>([:])
    private let durations = Locked<[Key: CoreMetrics.Timer]>([:])
    private let retries = Locked<[Key: Counter]>([:])

    /// Metrics from `factory`, or `nil` when there is no backend.
    package static func make(_ factory: (any MetricsFactory)?) -> HTTPMetrics? {
        AmplifyMetrics.activeFactory(factory).map(HTTPMetrics.init)
    }

    private init(_ factory: any MetricsFactory) {
        self.factory = factory
    }

    /// One attempt ended with `status` (a status code, or what went wrong) after `nanoseconds`.
    package func attempt(service: String, operation: String, status: String, nanoseconds: Int64) {
        let key = Key(service: service, operation: operation, status: status)
        let counter = requests.withLock { table in
            if let made = table[key] { return made }
            let made = Counter(
                label: AmplifyMetrics.httpRequests, dimensions: [("service", service), ("operation", operation), ("status", status)],
                factory: factory)
            table[key] = made
            return made
        }
        counter.increment()
        let timerKey = Key(service: service, operation: operation, status: "")
        let timer = durations.withLock { table in
            if let made = table[timerKey] { return made }
            let made = CoreMetrics.Timer(
                label: AmplifyMetrics.httpRequestDuration, dimensions: [("service", service), ("operation", operation)], factory: factory)
            table[timerKey] = made
            return made
        }
        timer.recordNanoseconds(nanoseconds)
    }

    /// An attempt of `operation` is made again.
    func retry(service: String, operation: String) {
        let key = Key(service: service, operation: operation, status: "")
        let counter = retries.withLock { table in
            if let made = table[key] { return made }
            let made = Counter(label: AmplifyMetrics.httpRetries, dimensions: [("service", service), ("operation", operation)], factory: factory)
            table[key] = made
            return made
        }
        counter.increment()
    }
}
