import AWSPluginsCore
import Amplify
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

@Suite("AWS JSON 1.1 client")
struct AWSJSONClientTests {
    private func withService(_ body: (AWSJSONClient, AWSJSONClient) async throws -> Void) async throws {
        let server = try await LocalHTTPServer.start()
        let loop = try EventLoop(name: "json-test")
        let http = try HTTPClient(loop: loop)
        let credentials = StaticCredentialsProvider(AWSCredentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret"))
        let client = AWSJSONClient(
            http: http, endpoint: server.url("/json"), region: "us-east-1", signingName: "cognito-idp",
            credentials: credentials, retryPolicy: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10)))
        let counter = AWSJSONClient(
            http: http, endpoint: server.url("/json"), region: "us-east-1", signingName: "test", retryPolicy: RetryPolicy(maxAttempts: 1))
        defer { server.stop() }
        try await body(client, counter)
        await http.shutdown()
        try loop.shutdown()
    }

    private func count(_ counter: AWSJSONClient, _ key: String) async throws -> Int? {
        try await counter.call("Test.Count", ["key": .string("count-\(key)"), "of": .string(key)], signed: false)["count"]?.intValue
    }

    @Test("a signed call carries the target, the JSON 1.1 content type and a SigV4 Authorization; an unsigned one none")
    func signing() async throws {
        try await withService { client, _ in
            let answer = try await client.call("Test.Echo", ["key": "echo", "Username": "alice"])
            #expect(answer["target"] == "Test.Echo")
            #expect(answer["contentType"] == "application/x-amz-json-1.1")
            #expect(answer["authorization"]?.stringValue?.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/") == true)
            #expect(answer["authorization"]?.stringValue?.contains("/us-east-1/cognito-idp/aws4_request") == true)
            #expect(answer.value(at: "body.Username") == "alice")
            let unsigned = try await client.call("Test.Echo", ["key": "echo2"], signed: false)
            #expect(unsigned["authorization"] == .null)
        }
    }

    @Test("5xx and throttling answers are retried with backoff until they succeed")
    func retries() async throws {
        try await withService { client, _ in
            let failedTwice = try await client.call("Test.FailTwice", ["key": "fail-twice"])
            let throttled = try await client.call("Test.Throttle", ["key": "throttle"])
            #expect(failedTwice["attempts"] == 3)
            #expect(throttled["attempts"] == 2)
        }
    }

    @Test("a 4xx client error is never retried and arrives as the service's code and message")
    func clientErrors() async throws {
        try await withService { client, counter in
            do {
                _ = try await client.call("Test.Deny", ["key": "deny"])
                Issue.record("the denied call succeeded")
            } catch let error as AWSPluginsError {
                #expect(error.code == "NotAuthorizedException")
                #expect(error.errorDescription == "NotAuthorizedException: Incorrect username or password.")
                #expect(error.httpStatus == 400)
            }
            #expect(try await count(counter, "deny") == 1)
        }
    }

    @Test("a service that keeps failing gives up after the policy's attempts with its last error")
    func givesUp() async throws {
        try await withService { _, counter in
            let strict = AWSJSONClient(
                http: counter.http, endpoint: counter.endpoint, region: "us-east-1", signingName: "test",
                retryPolicy: RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(10)))
            do {
                _ = try await strict.call("Test.FailTwice", ["key": "gives-up"], signed: false)
                Issue.record("succeeded within two attempts")
            } catch let error as AWSPluginsError {
                #expect(error.code == "InternalErrorException")
                #expect(error.httpStatus == 500)
            }
            #expect(try await count(counter, "gives-up") == 2)
        }
    }
}
