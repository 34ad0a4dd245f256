import AWSPluginsCore
import Amplify
import AmplifyEventLoop
import AmplifyTestKit
import CoreMetrics
import Foundation
import MetricsTestKit
import Testing

@Suite("HTTP metrics")
struct HTTPMetricsTests {
    private func withClient(_ metrics: TestMetrics, _ body: (HTTPClient, LocalHTTPServer) async throws -> Void) async throws {
        let server = try await LocalHTTPServer.start()
        let loop = try EventLoop(name: "http-metrics")
        let client = try HTTPClient(loop: loop, metricsFactory: metrics)
        defer { server.stop() }
        do {
            try await body(client, server)
        } catch {
            await client.shutdown()
            try loop.shutdown()
            throw error
        }
        await client.shutdown()
        try loop.shutdown()
    }

    @Test("every attempt is counted by service, operation and status, and timed; a retried AWS call counts its retries")
    func attemptsStatusesAndRetries() async throws {
        let metrics = TestMetrics()
        try await withClient(metrics) { http, server in
            _ = try await http.send(HTTPRequest(url: server.url("/bytes?n=10")))
            _ = try await http.send(HTTPRequest(url: server.url("/nowhere")))
            let json = AWSJSONClient(
                http: http, endpoint: server.url("/json"), region: "us-east-1", signingName: "cognito-idp",
                retryPolicy: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10)))
            _ = try await json.call("Test.FailTwice", ["key": "metrics-fail-twice"], signed: false)
        }
        #expect(
            try metrics.expectCounter(AmplifyMetrics.httpRequests, [("service", "http"), ("operation", "GET"), ("status", "200")]).totalValue == 1)
        #expect(
            try metrics.expectCounter(AmplifyMetrics.httpRequests, [("service", "http"), ("operation", "GET"), ("status", "404")]).totalValue == 1)
        let failing = [("service", "cognito-idp"), ("operation", "FailTwice")]
        #expect(try metrics.expectCounter(AmplifyMetrics.httpRequests, failing + [("status", "500")]).totalValue == 2)
        #expect(try metrics.expectCounter(AmplifyMetrics.httpRequests, failing + [("status", "200")]).totalValue == 1)
        #expect(try metrics.expectCounter(AmplifyMetrics.httpRetries, failing).totalValue == 2)
        let timer = try metrics.expectTimer(AmplifyMetrics.httpRequestDuration, failing)
        #expect(timer.values.count == 3)
        #expect(timer.values.allSatisfy { $0 > 0 })
        #expect(try metrics.expectTimer(AmplifyMetrics.httpRequestDuration, [("service", "http"), ("operation", "GET")]).values.count == 2)
    }

    @Test("a request that gets no answer is counted under what went wrong")
    func connectionFailure() async throws {
        let metrics = TestMetrics()
        try await withClient(metrics) { http, _ in
            // A port nothing listens on: bind one, close it, then connect.
            let closed = try await LocalHTTPServer.start()
            let url = closed.url("/")
            closed.stop()
            var request = HTTPRequest(url: url, timeout: .seconds(5))
            request.service = "s3"
            request.operation = "GetObject"
            await #expect(throws: HTTPClientError.self) { _ = try await http.send(request) }
        }
        #expect(
            try metrics.expectCounter(AmplifyMetrics.httpRequests, [("service", "s3"), ("operation", "GetObject"), ("status", "connection")])
                .totalValue == 1)
    }

    @Test("S3 requests are named by their operation, from method and query")
    func s3OperationNames() {
        #expect(AWSRESTRequest(method: "PUT", path: "/b/k").operationName == "PutObject")
        #expect(AWSRESTRequest(method: "PUT", path: "/b/k", query: [("partNumber", "2"), ("uploadId", "u")]).operationName == "UploadPart")
        #expect(AWSRESTRequest(method: "POST", path: "/b/k", query: [("uploads", "")]).operationName == "CreateMultipartUpload")
        #expect(AWSRESTRequest(method: "POST", path: "/b/k", query: [("uploadId", "u")]).operationName == "CompleteMultipartUpload")
        #expect(AWSRESTRequest(method: "DELETE", path: "/b/k", query: [("uploadId", "u")]).operationName == "AbortMultipartUpload")
        #expect(AWSRESTRequest(method: "GET", path: "/b", query: [("list-type", "2")]).operationName == "ListObjectsV2")
        #expect(AWSRESTRequest(method: "GET", path: "/b/k").operationName == "GetObject")
        #expect(AWSRESTRequest(method: "HEAD", path: "/b/k").operationName == "HeadObject")
        #expect(AWSRESTRequest(method: "DELETE", path: "/b/k").operationName == "DeleteObject")
    }

    @Test("with no backend the client keeps no metric objects: swift-metrics' no-op factory is recognised")
    func noBackend() {
        #expect(AmplifyMetrics.activeFactory(NOOPMetricsHandler.instance) == nil)
        #expect(AmplifyMetrics.activeFactory(TestMetrics()) != nil)
    }

    @Test("a presigned URL's signature, credential and token never reach a log line: the client logs the URL without its query")
    func redactedURL() throws {
        let url = try #require(
            URL(string: "https://bucket.s3.amazonaws.com:8443/photos/cat.jpg?X-Amz-Signature=abc123&X-Amz-Security-Token=tok&X-Amz-Credential=AKID"))
        #expect(HTTPClient.redactedForLogs(url) == "https://bucket.s3.amazonaws.com:8443/photos/cat.jpg")
    }
}
