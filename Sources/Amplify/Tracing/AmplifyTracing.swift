import Tracing

/// Spans for what the package does on a request's behalf (swift-distributed-tracing): each AWS
/// call, GraphQL operation and `Amplify.Auth` call is a child span of the task's
/// `ServiceContext.current` — the request's span when Hummingbird's or Vapor's tracing
/// middleware made one — once the application bootstraps a tracer
/// (`InstrumentationSystem.bootstrap`). Without a tracer nothing is made: one read of the
/// bootstrapped instrument, then the call itself.
package enum AmplifyTracing {
    /// The bootstrapped tracer, or `nil` for the no-op one (callers then skip every span).
    package static var tracer: (any Tracer)? {
        let tracer = InstrumentationSystem.tracer
        return tracer is NoOpTracer ? nil : tracer
    }

    /// Runs `body` in a span named `name` (a child of the task's context), or without one when no
    /// tracer is bootstrapped (`body` then gets `nil`). The span records what `body` throws.
    /// - Throws: what `body` throws.
    package static func withSpan<T>(
        _ name: String, ofKind kind: SpanKind = .internal, isolation: isolated (any Actor)? = #isolation, _ body: ((any Span)?) async throws -> T
    ) async rethrows -> T {
        guard let tracer else { return try await body(nil) }
        let span = tracer.startSpan(name, context: ServiceContext.current ?? .topLevel, ofKind: kind)
        defer { span.end() }
        do {
            return try await ServiceContext.$current.withValue(span.context) { try await body(span) }
        } catch {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }
}
