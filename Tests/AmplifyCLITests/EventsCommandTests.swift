import AmplifyTestKit
import Foundation
import Testing

/// `amplify events …` against the AppSync Events stand-in, each command its own process, the
/// Events API read from a Gen 2 file's `custom.events`.
@Suite("amplify events")
struct EventsCommandTests {
    /// A folder with an amplify_outputs.json whose custom.events is the stand-in.
    private func folder(_ server: AppSyncEventsServer, key: String = "da2-test") throws -> URL {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("cli-events-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file =
            #"{"version": "1.4", "custom": {"events": {"url": "\#(server.httpEndpoint.absoluteString)", "aws_region": "us-east-1", "default_authorization_type": "API_KEY", "api_key": "\#(key)"}}}"#
        try Data(file.utf8).write(to: folder.appendingPathComponent("amplify_outputs.json"))
        return folder
    }

    @Test("subscribe prints a JSON line per state and per event until --count; publish sends over the WebSocket, or over HTTP with --http")
    func subscribeAndPublish() async throws {
        try await AppSyncEventsServer.with { server in
            let folder = try folder(server)
            defer { try? FileManager.default.removeItem(at: folder) }
            async let subscribed = Tool.run(["events", "subscribe", "/default/*", "--count", "3", "--timeout", "120"], in: folder)
            try #require(await eventually { try server.state().subscriptions == 1 }, "the subscription did not start")
            let published = try await Tool.run(["events", "publish", "/default/chat", #"{"text": "hi"}"#, #""plain""#], in: folder)
            #expect(published.exitCode == 0, "\(published.stderr)")
            #expect(published.stdout == "published 2 event(s) to /default/chat\n")
            let posted = try await Tool.run(["events", "publish", "/default/room/1", "[1, 2]", "--http", "--json"], in: folder)
            #expect(posted.exitCode == 0, "\(posted.stderr)")
            #expect(posted.stdout == "{\n  \"successful\" : 1\n}\n")
            let run = try await subscribed
            #expect(run.exitCode == 0, "\(run.stderr)")
            #expect(
                run.stdout == #"""
                    {"connection":"connecting"}
                    {"connection":"connected"}
                    {"event":{"text":"hi"}}
                    {"event":"plain"}
                    {"event":[1,2]}

                    """#)
        }
    }

    @Test("seven events go in two messages; an argument that is not JSON, a six-segment channel and a wrong key each fail with the reason")
    func batchesAndErrors() async throws {
        try await AppSyncEventsServer.with { server in
            let folder = try folder(server)
            defer { try? FileManager.default.removeItem(at: folder) }
            let seven = try await Tool.run(["events", "publish", "/default/chat"] + (1...7).map(String.init), in: folder)
            #expect(seven.exitCode == 0, "\(seven.stderr)")
            #expect(try server.state().published == 7)
            let notJSON = try await Tool.run(["events", "publish", "/default/chat", "hello"], in: folder)
            #expect(notJSON.exitCode == 2)
            #expect(notJSON.stderr.contains("'hello' is not JSON"))
            let deep = try await Tool.run(["events", "publish", "/default/a/b/c/d/e", "1", "--http"], in: folder)
            #expect(deep.exitCode == 1)
            #expect(deep.stderr.contains("has 6 segments"))
            let wrong = try self.folder(server, key: "da2-wrong")
            defer { try? FileManager.default.removeItem(at: wrong) }
            let refused = try await Tool.run(["events", "publish", "/default/chat", "1", "--http"], in: wrong)
            #expect(refused.exitCode == 1)
            #expect(refused.stderr.contains("401"))
        }
    }
}
