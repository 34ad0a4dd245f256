import AWSPluginsCore
import Foundation
import Testing

@Suite("AWS protocol helpers")
struct ProtocolHelpersTests {
    @Test(
        "header names compare without ASCII case, and only ASCII letters fold",
        arguments: [
            ("Host", "host", true), ("CONTENT-TYPE", "content-type", true), ("x-api-key", "X-Api-Key", true), ("", "", true),
            ("host", "hosts", false), ("host", "hast", false), ("@", "`", false), ("[", "{", false), ("É", "é", false), ("é", "é", true),
        ])
    func headerNamesIgnoreASCIICase(left: String, right: String, equal: Bool) {
        #expect(left.equalsIgnoringASCIICase(right) == equal)
        #expect(right.equalsIgnoringASCIICase(left) == equal)
    }

    @Test("a request's cached URL text is dropped when its URL changes, so curl never gets a stale one")
    func urlTextFollowsTheURL() throws {
        var request = HTTPRequest(url: try #require(URL(string: "http://127.0.0.1:1/a")))
        request.urlText = "http://127.0.0.1:1/a"
        request.url = try #require(URL(string: "http://127.0.0.1:1/b"))
        #expect(request.urlText == nil)
    }

    @Test("throttling, 429, 5xx and connection failures are retried; other 4xx and 501 are not")
    func retryable() {
        let policy = RetryPolicy()
        #expect(policy.isRetryable(.connection))
        #expect(policy.isRetryable(.response(status: 400, code: "ThrottlingException")))
        #expect(policy.isRetryable(.response(status: 429, code: nil)))
        #expect(policy.isRetryable(.response(status: 503, code: "SlowDown")))
        #expect(policy.isRetryable(.response(status: 500, code: nil)))
        #expect(!policy.isRetryable(.response(status: 501, code: nil)))
        #expect(!policy.isRetryable(.response(status: 400, code: "NotAuthorizedException")))
        #expect(!policy.isRetryable(.response(status: 404, code: nil)))
    }

    @Test("backoff doubles per retry up to the cap, scaled by the jitter")
    func backoff() {
        let policy = RetryPolicy(maxAttempts: 10, baseDelay: .milliseconds(100), maxDelay: .seconds(1))
        #expect(policy.delay(beforeRetry: 1) { 0.999_999 } < .milliseconds(100))
        #expect(policy.delay(beforeRetry: 3) { 0.5 } == .milliseconds(200))
        #expect(policy.delay(beforeRetry: 9) { 0.5 } == .milliseconds(500))
        #expect(policy.delay(beforeRetry: 2) { 0 } == .zero)
    }

    @Test("a JSON 1.1 error answer becomes a code, the service's message and a suggestion")
    func jsonErrors() {
        let body = Data(#"{"__type":"com.amazonaws.cognito#NotAuthorizedException","message":"Incorrect username or password."}"#.utf8)
        let error = AWSJSONError.parse(status: 400, body: body)
        #expect(error.code == "NotAuthorizedException")
        #expect(error.errorDescription == "NotAuthorizedException: Incorrect username or password.")
        #expect(error.recoverySuggestion.contains("sign in again"))
        #expect(error.httpStatus == 400)
        let header = AWSJSONError.parse(status: 400, body: Data(), errorTypeHeader: "ThrottlingException:http://internal")
        #expect(header.code == "ThrottlingException")
        #expect(header.recoverySuggestion.contains("retried with backoff"))
        #expect(AWSJSONError.parse(status: 502, body: Data("<html>".utf8)).code == "HTTP502")
    }

    @Test("endpoints: the configured one, then AWS_ENDPOINT_URL_<SERVICE>, then AWS_ENDPOINT_URL, then AWS's")
    func endpoints() throws {
        let environment = ["AWS_ENDPOINT_URL": "http://127.0.0.1:5000", "AWS_ENDPOINT_URL_S3": "http://127.0.0.1:9000"]
        #expect(
            try AWSEndpoint.resolve(
                service: "cognito-idp", serviceId: "Cognito Identity Provider", region: "us-east-1", configured: "http://localhost:1234",
                environment: environment
            ).absoluteString == "http://localhost:1234")
        #expect(
            try AWSEndpoint.resolve(service: "s3", serviceId: "S3", region: "us-east-1", environment: environment).absoluteString
                == "http://127.0.0.1:9000")
        #expect(
            try AWSEndpoint.resolve(service: "kinesis", serviceId: "Kinesis", region: "us-east-1", environment: environment).absoluteString
                == "http://127.0.0.1:5000")
        #expect(
            try AWSEndpoint.resolve(service: "kinesis", serviceId: "Kinesis", region: "eu-west-1", environment: [:]).absoluteString
                == "https://kinesis.eu-west-1.amazonaws.com")
        #expect(throws: AWSPluginsError.self) {
            try AWSEndpoint.resolve(service: "s3", serviceId: "S3", region: "us-east-1", configured: "ftp://x", environment: [:])
        }
    }
}
