import AWSPluginsCore
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import InMemoryTracing
import Testing
import Tracing

@Suite("HTTP calls as spans")
struct HTTPTracingTests {
    @Test("with a tracer bootstrapped, each call is a client span under the caller's span, with the AWS service, operation and status, no query")
    func callsAreChildSpans() async throws {
        let tracer = TestTracer.shared
        let server = try await LocalHTTPServer.start()
        let loop = try EventLoop(name: "http-tracing-test")
        let client = try HTTPClient(loop: loop)
        let parentTrace = try await tracer.withSpan("request", ofKind: .server) { parent in
            var request = HTTPRequest(method: "GET", url: server.url("/echo?status=503&X-Amz-Signature=secret"))
            request.service = "cognito-idp"
            request.operation = "GetUser"
            _ = try await client.send(request)
            _ = try await client.send(HTTPRequest(method: "POST", url: server.url("/echo"), body: .bytes(Array("{}".utf8))))
            return (parent.context.inMemorySpanContext?.traceID ?? "", parent.context.inMemorySpanContext?.spanID ?? "")
        }
        await client.shutdown()
        try loop.shutdown()
        server.stop()
        let spans = TestTracer.spans(inTrace: parentTrace.0)
        let aws = try #require(spans.first { $0.operationName == "cognito-idp.GetUser" })
        #expect(aws.kind == .client)
        #expect(aws.parentSpanID == parentTrace.1)
        #expect(aws.attributes["rpc.service"]?.toSpanAttribute() == "cognito-idp")
        #expect(aws.attributes["http.response.status_code"]?.toSpanAttribute() == 503)
        #expect(aws.status?.code == .error)
        #expect(!"\(aws.attributes)".contains("secret"))
        let plain = try #require(spans.first { $0.operationName == "HTTP POST" })
        #expect(plain.parentSpanID == parentTrace.1)
        #expect(plain.attributes["http.response.status_code"]?.toSpanAttribute() == 200)
    }
}
