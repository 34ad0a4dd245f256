import InMemoryTracing
import Tracing

/// An in-memory tracer bootstrapped as the process's tracer on first use (a process can
/// bootstrap one tracer only), for tests that check the spans the package makes. Tests find their
/// own spans by trace id, since every test of the process shares it.
public enum TestTracer {
    /// The process's tracer.
    public static let shared: InMemoryTracer = {
        let tracer = InMemoryTracer()
        InstrumentationSystem.bootstrap(tracer)
        return tracer
    }()

    /// The finished spans of the trace `traceID`.
    public static func spans(inTrace traceID: String) -> [FinishedInMemorySpan] {
        shared.finishedSpans.filter { $0.traceID == traceID }
    }
}
