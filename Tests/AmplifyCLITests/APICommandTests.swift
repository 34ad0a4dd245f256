import AmplifyTestKit
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `amplify api …` against the AppSync stand-in and the test HTTP server's API Gateway
/// stand-in, each command its own process.
@Suite("amplify api")
struct APICommandTests {
    /// A folder with a configuration naming the stand-in's GraphQL API and the HTTP server's REST API.
    private func folder(_ server: AppSyncServer, rest: LocalHTTPServer? = nil) throws -> URL {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("cli-api-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var apis =
            #""todos": {"endpointType": "GraphQL", "endpoint": "\#(server.graphQLEndpoint.absoluteString)", "region": "us-east-1", "authorizationType": "API_KEY", "apiKey": "da2-test"}"#
        if let rest {
            apis +=
                #", "orders": {"endpointType": "REST", "endpoint": "\#(rest.url("/execute-api/dev").absoluteString)", "region": "us-east-1", "authorizationType": "AWS_IAM"}"#
        }
        try Data(#"{"api": {"plugins": {"awsAPIPlugin": {\#(apis)}}}}"#.utf8).write(to: folder.appendingPathComponent("amplifyconfiguration.json"))
        return folder
    }

    private static let create = "mutation C($input: CreateTodoInput!) { createTodo(input: $input) { id name priority } }"

    @Test("mutate and query print the data (at --decode-path), --json wraps it; variables come inline or from @file")
    func queryAndMutate() async throws {
        try await AppSyncServer.with { server in
            let folder = try folder(server)
            defer { try? FileManager.default.removeItem(at: folder) }
            let mutate = try await Tool.run(
                [
                    "api", "mutate", Self.create, "--variables", #"{"input": {"id": "t1", "name": "from the shell", "priority": 2}}"#,
                    "--decode-path", "createTodo",
                ], in: folder)
            #expect(mutate.exitCode == 0, "\(mutate.stderr)")
            #expect(mutate.stdout == "{\n  \"id\" : \"t1\",\n  \"name\" : \"from the shell\",\n  \"priority\" : 2\n}\n")
            try Data(#"{"id": "t1"}"#.utf8).write(to: folder.appendingPathComponent("vars.json"))
            try Data("query G($id: ID!) { getTodo(id: $id) { name } }".utf8).write(to: folder.appendingPathComponent("get.graphql"))
            let query = try await Tool.run(["api", "query", "@get.graphql", "--variables", "@vars.json", "--json"], in: folder)
            #expect(query.exitCode == 0, "\(query.stderr)")
            #expect(query.stdout == "{\n  \"data\" : {\n    \"getTodo\" : {\n      \"name\" : \"from the shell\"\n    }\n  }\n}\n")
        }
    }

    @Test("GraphQL errors exit 1 with each error on stderr after the partial data; a bad --auth-mode is a usage error")
    func errors() async throws {
        try await AppSyncServer.with { server in
            let folder = try folder(server)
            defer { try? FileManager.default.removeItem(at: folder) }
            let failing = try await Tool.run(["api", "query", "query { whoAmI { authMode } errorTodo(id: \"x\") { id } }"], in: folder)
            #expect(failing.exitCode == 1)
            #expect(failing.stdout.contains("\"authMode\" : \"API_KEY\""))
            #expect(failing.stderr.hasPrefix("error: CustomError: Todo x could not be read (at errorTodo)"))
            let mode = try await Tool.run(["api", "query", "{ whoAmI { authMode } }", "--auth-mode", "password"], in: folder)
            #expect(mode.exitCode == 2)
            #expect(
                mode.stderr.contains(
                    "--auth-mode takes API_KEY, AWS_IAM, AMAZON_COGNITO_USER_POOLS, OPENID_CONNECT, AWS_LAMBDA or NONE; got 'password'."))
        }
    }

    @Test("subscribe prints a JSON line per state and per event and stops after --count; Ctrl-C stops it cleanly with exit 0")
    func subscribe() async throws {
        try await AppSyncServer.with { server in
            let folder = try folder(server)
            defer { try? FileManager.default.removeItem(at: folder) }
            async let subscribed = Tool.run(
                ["api", "subscribe", "subscription { onCreateTodo(name: \"shell\") { name } }", "--count", "1", "--timeout", "120"], in: folder)
            try #require(await eventually { try server.state()["subscriptions"] == 1 }, "the subscription did not start")
            #expect(try await Tool.run(["api", "mutate", Self.create, "--variables", #"{"input": {"name": "shell"}}"#], in: folder).exitCode == 0)
            let run = try await subscribed
            #expect(run.exitCode == 0, "\(run.stderr)")
            #expect(
                run.stdout == #"""
                    {"connection":"connecting"}
                    {"connection":"connected"}
                    {"data":{"onCreateTodo":{"name":"shell"}}}

                    """#)

            let process = Process()
            process.executableURL = ProductRunner.url(of: "amplify")
            process.arguments = ["api", "subscribe", "subscription { onCreateTodo { name } }"]
            process.currentDirectoryURL = folder
            // Standard output goes to a file the test reads as it grows: the server counts the
            // subscription when `start` arrives, before the tool has read `start_ack` and printed
            // "connected", so Ctrl-C is sent only once that line is out.
            let outputURL = folder.appendingPathComponent("subscribe.out")
            try #require(FileManager.default.createFile(atPath: outputURL.path, contents: nil))
            let output = try FileHandle(forWritingTo: outputURL)
            defer { try? output.close() }
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.runSerialized()
            let connected = #"{"connection":"connected"}"# + "\n"
            try #require(
                await eventually { try String(contentsOf: outputURL, encoding: .utf8).contains(connected) }, "the subscription did not connect")
            #expect(try server.state()["subscriptions"] == 1)
            kill(process.processIdentifier, SIGINT)
            #expect(await eventually { !process.isRunning })
            #expect(process.terminationStatus == 0)
            #expect(try String(contentsOf: outputURL, encoding: .utf8) == #"{"connection":"connecting"}"# + "\n" + connected)
            #expect(await eventually { try server.state()["connections"] == 0 })
        }
    }

    @Test("REST get and post sign for execute-api with the environment's keys; a refused signature exits 1 with API Gateway's message")
    func rest() async throws {
        let http = try await LocalHTTPServer.start()
        defer { http.stop() }
        try await AppSyncServer.with { server in
            let folder = try folder(server, rest: http)
            defer { try? FileManager.default.removeItem(at: folder) }
            let keys = [
                "AWS_ACCESS_KEY_ID": "AKIDEXECUTEAPI", "AWS_SECRET_ACCESS_KEY": "execute-api-secret", "AWS_PROFILE": "none-\(UUID().uuidString)",
            ]
            let get = try await Tool.run(
                ["api", "get", "/orders/7", "--query", "expand=lines", "--header", "X-Trace: t-9"], in: folder, environment: keys)
            #expect(get.exitCode == 0, "\(get.stderr)")
            let echo = try JSONSerialization.jsonObject(with: Data(get.stdout.utf8)) as? [String: Any]
            #expect(echo?["path"] as? String == "/execute-api/dev/orders/7")
            #expect(echo?["query"] as? String == "expand=lines")
            #expect((echo?["headers"] as? [String: Any])?["x-trace"] as? String == "t-9")
            let post = try await Tool.run(["api", "post", "/orders", "--body", #"{"qty": 1}"#, "--json"], in: folder, environment: keys)
            #expect(post.exitCode == 0, "\(post.stderr)")
            #expect(post.stdout.contains("\"body\" : \"{\\\"qty\\\": 1}\""))
            var wrong = keys
            wrong["AWS_SECRET_ACCESS_KEY"] = "wrong"
            let refused = try await Tool.run(["api", "get", "/orders"], in: folder, environment: wrong)
            #expect(refused.exitCode == 1)
            #expect(
                refused.stderr.hasPrefix(
                    "error: The HTTP response status code is [403]. The service said: InvalidSignatureException: The request signature we calculated does not match"
                ))
        }
    }
}
