import AWSPluginsCore
import AmplifyConcurrency
import AmplifyCrypto
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

@Suite("HTTP client on the loop")
struct HTTPClientTests {
    private func withClient(_ body: (HTTPClient, LocalHTTPServer) async throws -> Void) async throws {
        let server = try await LocalHTTPServer.start()
        let loop = try EventLoop(name: "http-test")
        let client = try HTTPClient(loop: loop)
        do {
            try await body(client, server)
        } catch {
            await client.shutdown()
            try loop.shutdown()
            server.stop()
            throw error
        }
        await client.shutdown()
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
        server.stop()
    }

    private func json(_ response: HTTPResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test("a file-range body sends exactly those bytes of the file (a multipart upload's part); a range past the end is refused")
    func fileRangeBody() async throws {
        try await withClient { client, server in
            let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("range-\(UUID().uuidString)").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let response = try await client.send(
                HTTPRequest(method: "PUT", url: server.url("/echo"), body: .fileRange(path, offset: 30_000, length: 50_000)))
            let echo = try json(response)
            #expect(echo["bodyLength"] as? Int == 50_000)
            #expect(echo["bodySHA256"] as? String == Digest.hex(Digest.sha256(bytes[30_000..<80_000])))
            await #expect(throws: HTTPClientError.self) {
                try await client.send(HTTPRequest(method: "PUT", url: server.url("/echo"), body: .fileRange(path, offset: 90_000, length: 20_000)))
            }
        }
    }

    @Test("GET returns status, headers and the body byte for byte")
    func get() async throws {
        try await withClient { client, server in
            let response = try await client.send(HTTPRequest(url: server.url("/bytes?n=1048576")))
            #expect(response.status == 200)
            #expect(response.header("content-length") == "1048576")
            #expect(response.body.count == 1_048_576)
            #expect(response.body.prefix(300) == ArraySlice((0..<300).map { UInt8($0 % 251) }))
            let missing = try await client.send(HTTPRequest(url: server.url("/nothing")))
            #expect(missing.status == 404)
        }
    }

    @Test("POST sends the method, headers and body; the server sees exactly them")
    func post() async throws {
        try await withClient { client, server in
            let body = Array("hello, loop".utf8)
            let response = try await client.send(
                HTTPRequest(
                    method: "POST", url: server.url("/echo?x=1"),
                    headers: [("X-Amz-Target", "Test.Op"), ("Content-Type", "application/x-amz-json-1.1")],
                    body: .bytes(body)))
            let echo = try json(response)
            #expect(echo["method"] as? String == "POST")
            #expect(echo["query"] as? String == "x=1")
            #expect((echo["headers"] as? [String: String])?["x-amz-target"] == "Test.Op")
            #expect(echo["bodyLength"] as? Int == body.count)
            #expect(echo["bodySHA256"] as? String == Digest.hex(Digest.sha256(body)))
            #expect(response.header("x-test-server") == "yes")
        }
    }

    @Test("transfers one after another reuse easy handles, and none carries the last one's method, body, headers, limits or response file")
    func reusedHandlesStartClean() async throws {
        try await withClient { client, server in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reuse-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("answer.bin").path
            let body = Array("a body for the first transfer".utf8)
            for _ in 0..<3 {
                // A PUT with a body, a header, a time limit and its answer to a file...
                var put = HTTPRequest(
                    method: "PUT", url: server.url("/echo"), headers: [("X-Only-Here", "1")], body: .bytes(body), timeout: .seconds(30))
                put.responseFile = file
                let stored = try await client.send(put)
                #expect(stored.status == 200 && stored.body.isEmpty)
                let written = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
                #expect(written["method"] as? String == "PUT")
                #expect(written["bodyLength"] as? Int == body.count)
                // ...then a HEAD (no body wanted)...
                let head = try await client.send(HTTPRequest(method: "HEAD", url: server.url("/bytes?n=100")))
                #expect(head.status == 200 && head.body.isEmpty)
                // ...then a plain GET: a GET, no body, no header of the PUT, its body in memory.
                let get = try await client.send(HTTPRequest(url: server.url("/echo")))
                let echo = try json(get)
                #expect(echo["method"] as? String == "GET")
                #expect(echo["bodyLength"] as? Int == 0)
                #expect((echo["headers"] as? [String: String])?["x-only-here"] == nil)
                let bytes = try await client.send(HTTPRequest(url: server.url("/bytes?n=100")))
                #expect(bytes.body.count == 100)
            }
        }
    }

    @Test(
        "a kept connection the server shuts while it idles is let go, the next request opens another, and the client keeps none of the shut sockets open"
    )
    func idleConnectionsShutByTheServer() async throws {
        try await withClient { client, server in
            // Asks on connections of its own whether the server has shut the idle one yet.
            let control = try HTTPClient(loop: client.loop)
            _ = try await client.send(HTTPRequest(url: server.url("/echo")))
            for round in 1...6 {
                let response = try await client.send(HTTPRequest(url: server.url("/linger-close?ms=5")))
                #expect(response.status == 200)
                #expect(response.body == Array("kept".utf8))
                var shut = false
                for _ in 0..<600 where !shut {
                    let count = try await control.send(HTTPRequest(url: server.url("/linger-shut-count")))
                    shut = Int(String(decoding: count.body, as: UTF8.self)) ?? 0 >= round
                    if !shut { try await Task.sleep(for: .milliseconds(10)) }
                }
                #expect(shut)
            }
            let last = try await client.send(HTTPRequest(url: server.url("/echo")))
            #expect(last.status == 200)
            await control.shutdown()
            // The kept connection (and at most one being let go) stay open; the six shut ones are closed.
            #expect(await client.connectionSocketCount() <= 2)
        }
    }

    @Test("a task on the loop's executor sends requests that start and resume on the loop thread")
    func sendFromLoopExecutor() async throws {
        try await withClient { client, server in
            let loop = client.loop
            let outcomes = try await withTaskExecutorPreference(loop.taskExecutor) { () async throws -> [String] in
                var outcomes: [String] = []
                for index in 0..<5 {
                    let response = try await client.send(HTTPRequest(url: server.url("/bytes?n=\(index + 1)")))
                    outcomes.append("\(response.status) \(response.body.count) \(loop.inEventLoop)")
                }
                return outcomes
            }
            #expect(outcomes == (1...5).map { "200 \($0) true" })
        }
    }

    @Test("100 concurrent requests complete on one loop")
    func concurrent() async throws {
        try await withClient { client, server in
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<100 {
                    group.addTask { try await client.send(HTTPRequest(url: server.url("/echo?i=\(index)"), timeout: .seconds(10))).status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.count == 100)
            #expect(statuses.allSatisfy { $0 == 200 })
        }
    }

    @Test("a request past its time limit fails with a timeout, and a cancelled task aborts its transfer")
    func timeoutAndCancellation() async throws {
        try await withClient { client, server in
            // The server answers after 3 s: without the time limit (or the cancellation) the request
            // would succeed. (No wall-clock bound: other tests may keep the task pool busy.)
            do {
                _ = try await client.send(HTTPRequest(url: server.url("/slow?ms=3000"), timeout: .milliseconds(200)))
                Issue.record("the slow request succeeded")
            } catch let error as HTTPClientError {
                #expect(error.kind == .timeout)
                #expect(error.message.contains("timed out"))
            }
            let task = Task { try await client.send(HTTPRequest(url: server.url("/slow?ms=3000"))) }
            try await Task.sleep(for: .milliseconds(100))
            task.cancel()
            do {
                _ = try await task.value
                Issue.record("the cancelled request succeeded")
            } catch let error as HTTPClientError {
                #expect(error.kind == .cancelled)
            }
        }
    }

    @Test("a refused connection is a connection error")
    func refused() async throws {
        try await withClient { client, _ in
            do {
                _ = try await client.send(HTTPRequest(url: URL(string: "http://127.0.0.1:1/")!))
                Issue.record("connected to port 1")
            } catch let error as HTTPClientError {
                #expect(error.kind == .connection)
            }
        }
    }

    @Test("a 100 MiB body streams from a file and a 100 MiB response streams to a file, with progress, memory flat")
    func streaming() async throws {
        try await withClient { client, server in
            let folder = NSTemporaryDirectory() + "http-stream-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let size = 100 * 1_048_576
            let source = folder + "/upload.bin"
            _ = FileManager.default.createFile(atPath: source, contents: nil)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: source))
            let block = Data((0..<1_048_576).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            for _ in 0..<100 { handle.write(block) }
            try handle.close()
            let uploaded = MaxValue()
            let uploadReports = Locked<[Int64]>([])
            var request = HTTPRequest(method: "PUT", url: server.url("/echo"), body: .file(source))
            request.uploadProgress = { sent, _ in
                uploaded.set(sent)
                uploadReports.withLock { $0.append(sent) }
            }
            let echo = try json(try await client.send(request))
            #expect(echo["bodyLength"] as? Int == size)
            #expect(uploaded.value == Int64(size))
            // Progress is passed on at most once per MiB moved (and at the end), rising, never
            // repeated: curl's progress function runs for every 64 KiB sent and more.
            let sentReports = uploadReports.value
            #expect(sentReports.count <= 101, "\(sentReports.count) upload reports")
            #expect(sentReports == sentReports.sorted() && Set(sentReports).count == sentReports.count)
            #expect(sentReports.last == Int64(size))
            let target = folder + "/download.bin"
            let downloadReports = Locked<[Int64]>([])
            var get = HTTPRequest(url: server.url("/bytes?n=\(size)"), responseFile: target)
            get.downloadProgress = { received, _ in downloadReports.withLock { $0.append(received) } }
            let download = try await client.send(get)
            let receivedReports = downloadReports.value
            #expect(!receivedReports.isEmpty && receivedReports.count <= 101, "\(receivedReports.count) download reports")
            #expect(receivedReports == receivedReports.sorted() && receivedReports.last == Int64(size))
            #expect(download.status == 200)
            #expect(download.body.isEmpty)
            #expect((try FileManager.default.attributesOfItem(atPath: target)[.size] as? NSNumber)?.intValue == size)
            // A client that buffered either body would grow by 100 MiB. Resident memory is per
            // process and other tests run at the same time, so the bound is measured in a process
            // of its own (`HTTPBenchmark --memory-check`). Sanitizer runtimes grow resident memory
            // with their shadow pages, so the bound applies to plain builds.
            let run = try await ProductRunner.run("HTTPBenchmark", ["--memory-check", "100"])
            #expect(run.exitCode == 0)
            let growth = try #require(
                run.stdout.split(separator: "\n").compactMap {
                    $0.hasPrefix("resident growth bytes: ") ? Int($0.dropFirst(23)) : nil
                }.first)
            if !runningUnderSanitizer {
                #expect(growth < 40 * 1_048_576, "resident memory grew by \(growth >> 20) MiB")
            }
        }
    }
}

/// The largest value set so far, shared with a callback.
final class MaxValue: Sendable {
    private let storage = Locked<Int64>(0)
    func set(_ value: Int64) { storage.withLock { $0 = max($0, value) } }
    var value: Int64 { storage.value }
}
