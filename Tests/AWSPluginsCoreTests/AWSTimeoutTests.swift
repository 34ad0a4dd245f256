import AWSPluginsCore
import Amplify
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

/// Every AWS call has a connect timeout, a low-speed limit and a per-attempt deadline, is retried
/// under the retry policy when it runs out of one, and then fails with an error that says how
/// many attempts were made; a download cut mid-body continues with a `Range` for the rest.
/// Against the test kit's HTTP server (`/stall`, `/cut`, `/blackhole`).
@Suite("AWS calls: timeouts, stalls and cut downloads")
struct AWSTimeoutTests {
    /// Fast limits: connect within 1 s, at least 1 byte a second over 1 s, 2 attempts 10 ms apart.
    static let fast = AWSClientOptions(
        connectTimeout: .seconds(1), lowSpeedLimit: HTTPLowSpeedLimit(bytesPerSecond: 1, seconds: 1), attemptTimeout: .seconds(20),
        retryPolicy: RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(10)))

    func withClient(
        options: AWSClientOptions = fast, _ body: (AWSRESTClient, LocalHTTPServer) async throws -> Void
    ) async throws {
        let server = try await LocalHTTPServer.start()
        defer { server.stop() }
        let loop = try EventLoop(name: "timeout-tests")
        let http = try HTTPClient(loop: loop)
        let client = AWSRESTClient(
            http: http, endpoint: server.url(""), region: "us-east-1",
            credentials: StaticCredentialsProvider(AWSCredentials(accessKeyId: "AKID", secretAccessKey: "secret")), options: options)
        try await body(client, server)
        await http.shutdown()
        try loop.shutdown()
    }

    /// Runs `operation`, failing the test (instead of hanging) when it takes more than `seconds`.
    func within<T: Sendable>(_ seconds: Double, _ operation: @escaping @Sendable () async throws -> T) async throws -> T? {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                Issue.record("still running after \(seconds) s: the call has no time limit")
                return nil
            }
            return value
        }
    }

    /// The Range and If-Match of each request the server got for `key`.
    func seen(_ client: AWSRESTClient, _ server: LocalHTTPServer, _ key: String) async throws -> [[String: String?]] {
        let response = try await client.http.send(HTTPRequest(url: server.url("/seen?key=\(key)")))
        return try JSONDecoder().decode([[String: String?]].self, from: Data(response.body))
    }

    static func pattern(_ range: Range<Int>) -> [UInt8] { range.map { UInt8($0 % 251) } }

    @Test(
        "a server that sends the headers and then stalls mid-body: the low-speed limit ends each attempt, the policy retries once, then a timeout error says 2 attempts were made"
    )
    func stallMidBody() async throws {
        try await withClient { client, server in
            let started = Date()
            let outcome = try await within(150) { () -> String in
                do {
                    _ = try await client.send(
                        AWSRESTRequest(method: "GET", path: "/stall", query: [("key", "stall-1"), ("n", "100000"), ("after", "1000")]))
                    return "succeeded"
                } catch let error as HTTPClientError {
                    return "\(error.kind) \(error.attempts) \(error.message)"
                }
            }
            let text = try #require(outcome)
            #expect(text.hasPrefix("timeout 2 "), "\(text)")
            #expect(text.contains("too slow"), "\(text)")
            // curl averages the speed over its last ~5 s, so a stall after a burst of 1000 bytes is
            // noticed about 6 s in: two attempts take about 14 s (much longer on a loaded machine;
            // the bound only says that it ends).
            #expect(Date().timeIntervalSince(started) < 600)
            #expect(try await seen(client, server, "stall-1").count == 2)
        }
    }

    @Test("a server that never completes the TCP handshake: the connect timeout ends each attempt, the policy retries, then a timeout error")
    func connectTimeout() async throws {
        try await withClient { client, server in
            let answer = try JSONDecoder().decode(
                [String: Int].self, from: Data(try await client.http.send(HTTPRequest(url: server.url("/blackhole"))).body))
            let port = try #require(answer["port"])
            let blackhole = AWSRESTClient(
                http: client.http, endpoint: try #require(URL(string: "http://127.0.0.1:\(port)")), region: "us-east-1",
                credentials: client.credentials, options: Self.fast)
            let started = Date()
            let outcome = try await within(120) { () -> String in
                do {
                    _ = try await blackhole.send(AWSRESTRequest(method: "GET", path: "/anything"))
                    return "succeeded"
                } catch let error as HTTPClientError {
                    return "\(error.kind) \(error.attempts) \(error.message)"
                }
            }
            let text = try #require(outcome)
            #expect(text.hasPrefix("timeout 2 "), "\(text)")
            #expect(Date().timeIntervalSince(started) < 60)
        }
    }

    @Test("an answer that trickles faster than the low-speed limit but past the per-attempt deadline is ended by the deadline and retried")
    func perAttemptDeadline() async throws {
        var options = Self.fast
        options.attemptTimeout = .milliseconds(800)
        options.lowSpeedLimit = nil
        try await withClient(options: options) { client, server in
            let outcome = try await within(120) { () -> String in
                do {
                    _ = try await client.send(AWSRESTRequest(method: "GET", path: "/slow", query: [("ms", "5000")]))
                    return "succeeded"
                } catch let error as HTTPClientError {
                    return "\(error.kind) \(error.attempts)"
                }
            }
            #expect(outcome == "timeout 2")
        }
    }

    @Test(
        "a download cut mid-body (curl 18) is retried with a Range for the bytes still missing and If-Match on its ETag; the body arrives whole, in memory and in a file"
    )
    func cutDownloadResumes() async throws {
        try await withClient { client, server in
            let size = 300_000
            let memory = try await client.send(
                AWSRESTRequest(method: "GET", path: "/cut", query: [("key", "cut-memory"), ("n", String(size)), ("after", "70000")]))
            #expect(memory.status == 200)
            #expect(memory.body == Self.pattern(0..<size))
            let requests = try await seen(client, server, "cut-memory")
            #expect(requests.count == 2)
            #expect(requests.last?["range"] == "bytes=70000-299999")
            #expect(requests.last?["ifMatch"] == "\"v1-cut-memory\"")

            let file = FileManager.default.temporaryDirectory.appendingPathComponent("cut-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: file) }
            let toFile = try await client.send(
                AWSRESTRequest(
                    method: "GET", path: "/cut", query: [("key", "cut-file"), ("n", String(size)), ("after", "123456")], responseFile: file))
            #expect(toFile.status == 200)
            #expect(toFile.body.isEmpty)
            #expect(FileManager.default.contents(atPath: file).map { Array($0) } == Self.pattern(0..<size))
            #expect(try await seen(client, server, "cut-file").last?["range"] == "bytes=123456-299999")
        }
    }

    @Test("a ranged download cut mid-body continues inside its own range")
    func cutRangedDownloadResumes() async throws {
        try await withClient { client, server in
            let response = try await client.send(
                AWSRESTRequest(
                    method: "GET", path: "/cut", query: [("key", "cut-range"), ("n", "100000"), ("after", "3000")],
                    headers: [("Range", "bytes=10000-19999")]))
            #expect(response.status == 206)
            #expect(response.body == Self.pattern(10_000..<20_000))
            #expect(try await seen(client, server, "cut-range").map { $0["range"] } == ["bytes=10000-19999", "bytes=13000-19999"])
        }
    }

    @Test("a download whose object changed between attempts fails with PreconditionFailed instead of joining two versions")
    func changedObjectIsNotJoined() async throws {
        try await withClient { client, server in
            do {
                _ = try await client.send(
                    AWSRESTRequest(
                        method: "GET", path: "/cut", query: [("key", "cut-changed"), ("n", "100000"), ("after", "5000"), ("changeEtag", "1")]))
                Issue.record("two versions were joined")
            } catch let error as AWSPluginsError {
                #expect(error.code == "PreconditionFailed")
                #expect(error.httpStatus == 412)
            }
        }
    }

    @Test("with maxAttempts 1 a stalled call is not retried, and its error says 1 attempt")
    func notRetriedWhenPolicySaysOnce() async throws {
        var options = Self.fast
        options.retryPolicy.maxAttempts = 1
        try await withClient(options: options) { client, server in
            let outcome = try await within(120) { () -> String in
                do {
                    _ = try await client.send(
                        AWSRESTRequest(method: "GET", path: "/stall", query: [("key", "stall-once"), ("n", "100000"), ("after", "10")]))
                    return "succeeded"
                } catch let error as HTTPClientError {
                    return "\(error.kind) \(error.attempts)"
                }
            }
            #expect(outcome == "timeout 1")
            #expect(try await seen(client, server, "stall-once").count == 1)
        }
    }

    @Test("the http object of a plugin's block: defaults, each key read, 0 turns a limit off, and a value out of range names its key path")
    func optionsFromConfiguration() throws {
        #expect(try AWSClientOptions(json: nil, defaults: .jsonDefaults) == .jsonDefaults)
        #expect(try AWSClientOptions(json: ["bucket": "b"], defaults: .s3Defaults) == .s3Defaults)
        let read = try AWSClientOptions(
            json: [
                "http": [
                    "connectTimeoutSeconds": 2.5, "attemptTimeoutSeconds": 60, "lowSpeedLimitBytesPerSecond": 1024, "lowSpeedTimeSeconds": 5,
                    "maxAttempts": 5,
                ]
            ], defaults: .jsonDefaults)
        #expect(read.connectTimeout == .milliseconds(2500))
        #expect(read.attemptTimeout == .seconds(60))
        #expect(read.lowSpeedLimit == HTTPLowSpeedLimit(bytesPerSecond: 1024, seconds: 5))
        #expect(read.retryPolicy.maxAttempts == 5)
        let off = try AWSClientOptions(json: ["http": ["attemptTimeoutSeconds": 0, "lowSpeedLimitBytesPerSecond": 0]], defaults: .jsonDefaults)
        #expect(off.attemptTimeout == nil)
        #expect(off.lowSpeedLimit == nil)
        #expect(AWSClientOptions.s3Defaults.attemptTimeout == .seconds(900))
        do {
            _ = try AWSClientOptions(json: ["http": ["maxAttempts": 0]], defaults: .jsonDefaults)
            Issue.record("maxAttempts 0 was accepted")
        } catch {
            #expect(error.keyPath == "http.maxAttempts")
        }
        do {
            _ = try AWSClientOptions(json: ["http": ["connectTimeoutSeconds": 1e20]], defaults: .jsonDefaults)
            Issue.record("a connect timeout of 1e20 s was accepted")
        } catch {
            #expect(error.keyPath == "http.connectTimeoutSeconds")
        }
        do {
            _ = try AWSClientOptions(json: ["http": "fast"], defaults: .jsonDefaults)
            Issue.record("a string was accepted as the http object")
        } catch {
            #expect(error.keyPath == "http")
        }
    }
}
