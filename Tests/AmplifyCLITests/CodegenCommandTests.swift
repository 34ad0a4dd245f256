import AmplifyTestKit
import Foundation
import Testing

@Suite("amplify codegen models")
struct CodegenCommandTests {
    static let root = TestTools.packageRoot
    static let introspection = root.appendingPathComponent("Tests/Fixtures/ModelIntrospection/blog.json")
    /// The Gen 2 models the tests compile in Swift 6: the generator's output, byte for byte.
    static let models = root.appendingPathComponent("Tests/GeneratedModelsGen2")

    private func folder() throws -> URL {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("codegen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test(
        "the introspection's models are written as the files the tests compile in Swift 6 (lazy references, a composite key, an enum, an embedded type, owner and group rules, indexes), byte for byte"
    )
    func writesTheCompiledModels() async throws {
        let output = try folder()
        defer { try? FileManager.default.removeItem(at: output) }
        let run = try await Tool.run(["codegen", "models", Self.introspection.path, "--output", output.path])
        #expect(run.exitCode == 0, "\(run.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: output.path).sorted()
        #expect(
            written == [
                "AmplifyModels.swift", "Blog+Schema.swift", "Blog.swift", "Comment+Schema.swift", "Comment.swift", "Inventory+Schema.swift",
                "Inventory.swift", "Location+Schema.swift", "Location.swift", "Post+Schema.swift", "Post.swift", "PostStatus.swift",
            ])
        for name in written {
            let generated = try String(contentsOf: output.appendingPathComponent(name), encoding: .utf8)
            let compiled = try String(contentsOf: Self.models.appendingPathComponent(name), encoding: .utf8)
            #expect(generated == compiled, "\(name) differs from Tests/GeneratedModelsGen2/\(name)")
        }
        let again = try await Tool.run(["codegen", "models", Self.introspection.path, "--output", output.path])
        #expect(again.exitCode == 0)
        #expect(again.stdout.contains("Wrote 0 file(s)"), "an unchanged introspection rewrote files: \(again.stdout)")
    }

    @Test("an amplify_outputs.json is read through data.model_introspection; the same models come out")
    func readsOutputsFile() async throws {
        let output = try folder()
        defer { try? FileManager.default.removeItem(at: output) }
        let introspection = try String(contentsOf: Self.introspection, encoding: .utf8)
        let outputs = output.appendingPathComponent("amplify_outputs.json")
        let text =
            #"{"version": "1.4", "data": {"url": "https://example.appsync-api.us-east-1.amazonaws.com/graphql", "aws_region": "us-east-1", "default_authorization_type": "API_KEY", "authorization_types": [], "model_introspection": "#
            + introspection + "}}"
        try Data(text.utf8).write(to: outputs)
        let run = try await Tool.run(["codegen", "models", "--output", output.appendingPathComponent("Models").path], in: output)
        #expect(run.exitCode == 0, "\(run.stderr)")
        let post = try String(contentsOf: output.appendingPathComponent("Models/Post.swift"), encoding: .utf8)
        #expect(post == (try String(contentsOf: Self.models.appendingPathComponent("Post.swift"), encoding: .utf8)))
    }

    @Test(
        "a file without an introspection, or not JSON, fails with exit 1 and says what and where",
        arguments: [
            (#"{"version": "1.4", "auth": {}}"#, "No model introspection"),
            (#"{"models": {"A": {"name": "A", "fields": {"id": {"name": "id", "type": {"weird": 1}}}}}}"#, "A.id has a `type`"),
            (#"{"models": {"A": {"name": "A", "fields": {}"#, "not valid JSON"),
            (#"{"models": {"A": {"name": "A", "fields": {}, "primaryKeyInfo": {"primaryKeyFieldName": "key"}}}}"#, "names a field it does not have"),
        ])
    func refusesBadFiles(text: String, message: String) async throws {
        let output = try folder()
        defer { try? FileManager.default.removeItem(at: output) }
        let file = output.appendingPathComponent("bad.json")
        try Data(text.utf8).write(to: file)
        let run = try await Tool.run(["codegen", "models", file.path, "--output", output.appendingPathComponent("Models").path])
        #expect(run.exitCode == 1)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }
}
