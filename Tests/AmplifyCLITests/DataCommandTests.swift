import AmplifyTestKit
import Foundation
import Testing

/// `amplify data` against the AppSync stand-in serving the Gen 2 introspection, configured by an
/// `amplify_outputs.json` that carries it.
@Suite("amplify data", .serialized)
struct DataCommandTests {
    static let introspection = TestTools.packageRoot.appendingPathComponent("Tests/Fixtures/ModelIntrospection/blog.json")

    /// Runs `body` with the stand-in up and the path of an outputs file pointing at it.
    private func withOutputs(_ body: (String) async throws -> Void) async throws {
        try await AppSyncServer.with(AppSyncServer.Options(apiKeys: ["da2-data"], models: Self.introspection.path)) { server in
            let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("data-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let models = try String(contentsOf: Self.introspection, encoding: .utf8)
            let outputs = folder.appendingPathComponent("amplify_outputs.json")
            let text = """
                {"version": "1.4", "data": {"url": "\(server.graphQLEndpoint.absoluteString)", "aws_region": "us-east-1", "api_key": "da2-data", \
                "default_authorization_type": "API_KEY", "authorization_types": [], "model_introspection": \(models)}}
                """
            try Data(text.utf8).write(to: outputs)
            try await body(outputs.path)
        }
    }

    private func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

    /// The `id`s of the records printed one JSON object a line.
    private func ids(_ text: String) -> Set<String> {
        Set(
            lines(text).compactMap { line in
                line.range(of: #""id":"[^"]*""#, options: .regularExpression).map { String(line[$0].dropFirst(6).dropLast()) }
            })
    }

    @Test("create, get, list with --where and pages followed with --all, update with a condition, delete: JSON in and out")
    func crud() async throws {
        try await withOutputs { config in
            for index in 0..<7 {
                let created = try await Tool.run([
                    "data", "create", "Post",
                    #"{"id": "p\#(index)", "title": "Post \#(index)", "status": "\#(index % 2 == 0 ? "PUBLISHED" : "DRAFT")", "rating": \#(index)}"#,
                    "--config", config,
                ])
                #expect(created.exitCode == 0, "\(created.stderr)")
            }
            let got = try await Tool.run(["data", "get", "Post", "p3", "--config", config, "--json"])
            #expect(got.exitCode == 0, "\(got.stderr)")
            #expect(got.stdout.contains("Post 3"), "\(got.stdout)")

            let filtered = try await Tool.run(["data", "list", "Post", "--where", "status == PUBLISHED and rating >= 2", "--all", "--config", config])
            #expect(filtered.exitCode == 0, "\(filtered.stderr)")
            #expect(ids(filtered.stdout) == ["p2", "p4", "p6"])

            let paged = try await Tool.run(["data", "list", "Post", "--limit", "3", "--all", "--config", config])
            #expect(lines(paged.stdout).count == 7)
            let firstPage = try await Tool.run(["data", "list", "Post", "--limit", "3", "--config", config])
            #expect(lines(firstPage.stdout).count == 3)
            #expect(firstPage.stderr.contains("more: --next-token "))

            let refused = try await Tool.run([
                "data", "update", "Post", #"{"id": "p1", "title": "Changed"}"#, "--where", "status == PUBLISHED", "--config", config,
            ])
            #expect(refused.exitCode == 1)
            #expect(refused.stderr.contains("ConditionalCheckFailed"), "\(refused.stderr)")
            let updated = try await Tool.run([
                "data", "update", "Post", #"{"id": "p1", "title": "Changed"}"#, "--where", "status == DRAFT", "--config", config,
            ])
            #expect(updated.exitCode == 0, "\(updated.stderr)")
            #expect(updated.stdout.contains("Changed"))

            let deleted = try await Tool.run(["data", "delete", "Post", "p1", "--config", config])
            #expect(deleted.exitCode == 0, "\(deleted.stderr)")
            let gone = try await Tool.run(["data", "get", "Post", "p1", "--config", config])
            #expect(gone.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "null")
        }
    }

    @Test("a composite key is given as its values in order; the wrong number of them is a usage error naming the key")
    func compositeKey() async throws {
        try await withOutputs { config in
            let created = try await Tool.run([
                "data", "create", "Inventory", #"{"productID": "p-1", "warehouseID": "w-9", "name": "bolt", "quantity": 4}"#, "--config", config,
            ])
            #expect(created.exitCode == 0, "\(created.stderr)")
            let got = try await Tool.run(["data", "get", "Inventory", "p-1", "w-9", "--config", config])
            #expect(got.stdout.contains(#""quantity" : 4"#), "\(got.stdout)")
            let short = try await Tool.run(["data", "get", "Inventory", "p-1", "--config", config])
            #expect(short.exitCode == 2)
            #expect(short.stderr.contains("productID, warehouseID"), "\(short.stderr)")
        }
    }

    @Test("an unknown model, a field the model lacks in --where, and a config without an introspection are usage errors that say so")
    func badInput() async throws {
        try await withOutputs { config in
            let model = try await Tool.run(["data", "list", "Nope", "--config", config])
            #expect(model.exitCode == 2)
            #expect(model.stderr.contains("No model named 'Nope'") && model.stderr.contains("Blog, Post, Comment, Inventory"), "\(model.stderr)")
            let field = try await Tool.run(["data", "list", "Post", "--where", "colour == red", "--config", config])
            #expect(field.exitCode == 2)
            #expect(field.stderr.contains("model Post has no field 'colour'"), "\(field.stderr)")
            let syntax = try await Tool.run(["data", "list", "Post", "--where", "rating >=", "--config", config])
            #expect(syntax.exitCode == 2)
        }
        let bare = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("outputs-\(UUID().uuidString).json")
        try Data(#"{"version": "1.4", "auth": {"aws_region": "us-east-1", "user_pool_id": "us-east-1_abc", "user_pool_client_id": "c"}}"#.utf8).write(
            to: bare)
        defer { try? FileManager.default.removeItem(at: bare) }
        let none = try await Tool.run(["data", "list", "Post", "--config", bare.path])
        #expect(none.exitCode == 2)
        #expect(none.stderr.contains("No model introspection"), "\(none.stderr)")
    }
}
