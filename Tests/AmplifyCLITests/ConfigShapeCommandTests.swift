import Foundation
import Testing

/// `amplify config check` on each hand-written fixture (Tests/Fixtures/Configurations), with every
/// built-in plugin registered: what configures, what warns, what fails.
@Suite("amplify config check on every configuration shape")
struct ConfigShapeCommandTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Configurations")

    private struct Check {
        let exitCode: Int32
        let document: [String: Any]
        let stderr: String

        var plugins: [String] {
            ((document["categories"] as? [[String: Any]]) ?? []).flatMap { category in
                ((category["plugins"] as? [[String: Any]]) ?? []).compactMap { "\(category["category"] ?? "?").\($0["key"] ?? "?")" }
            }
        }
        var warnings: [String] { ((document["warnings"] as? [[String: Any]]) ?? []).compactMap { $0["path"] as? String } }
        var resources: [String] { ((document["resources"] as? [[String: Any]]) ?? []).compactMap { "\($0["kind"] ?? "?") \($0["name"] ?? "?")" } }
        var skipped: [String] { (document["skipped"] as? [String]) ?? [] }
        var format: String { document["format"] as? String ?? "" }
        var error: String? { (document["error"] as? [String: Any])?["description"] as? String }
    }

    private func check(_ name: String, strict: Bool = false) async throws -> Check {
        let run = try await Tool.run(
            ["config", "check", "--json", "--config", Self.fixtures.appendingPathComponent(name).path] + (strict ? ["--strict"] : []))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        return Check(exitCode: run.exitCode, document: document, stderr: run.stderr)
    }

    @Test("a Gen 1 API-key project whose Cognito block is the CLI's stub configures its API and exits 0; the stub is one warning, not an error")
    func gen1APIKeyOnly() async throws {
        let result = try await check("gen1-api-key-only.json")
        #expect(result.exitCode == 0, "\(result.error ?? result.stderr)")
        #expect(result.warnings == ["auth.plugins.awsCognitoAuthPlugin"])
        #expect(result.resources == ["GraphQL API https://keyonlyapi0123456789abcd.appsync-api.eu-west-2.amazonaws.com/graphql"])
        let text = try await Tool.run(["config", "check", Self.fixtures.appendingPathComponent("gen1-api-key-only.json").path])
        #expect(text.stdout.contains("OK: Amplify.configure() accepted the configuration (1 plugin configured; 1 warning)."))
    }

    @Test("an AppSync-only awsconfiguration.json and a v5 aws-exports object configure; keys nothing reads are listed under notRead")
    func appSyncOnlyAndV5() async throws {
        let appSync = try await check("awsconfiguration-appsync-only.json")
        #expect(appSync.exitCode == 0)
        #expect(appSync.plugins == ["api.awsAPIPlugin"])
        #expect(appSync.document["notRead"] as? [String] == ["DynamoDBObjectMapper"])
        let v5 = try await check("aws-exports-v5-objects.json")
        #expect(v5.exitCode == 0)
        #expect(v5.plugins == ["auth.awsCognitoAuthPlugin", "storage.awsS3StoragePlugin", "api.awsAPIPlugin"])
    }

    @Test("a placeholder pool id is named by the key the file has, in every shape, with its value and the path it is read as")
    func placeholderNamedBySourceKey() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("source-paths-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cases: [(String, String, String)] = [
            (
                "aws-exports.json",
                #"{"aws_project_region": "us-east-1", "aws_user_pools_id": "your-user-pool-id", "aws_user_pools_web_client_id": "c"}"#,
                "aws_user_pools_id"
            ),
            (
                "amplify_outputs.json",
                #"{"version": "1", "auth": {"aws_region": "us-east-1", "user_pool_id": "your-user-pool-id", "user_pool_client_id": "c"}}"#,
                "auth.user_pool_id"
            ),
            ("resources.json", #"{"Auth": {"Cognito": {"userPoolId": "your-user-pool-id", "userPoolClientId": "c"}}}"#, "Auth.Cognito.userPoolId"),
            (
                "awsconfiguration.json",
                #"{"CognitoUserPool": {"Default": {"PoolId": "your-user-pool-id", "AppClientId": "c", "Region": "us-east-1"}}}"#,
                "CognitoUserPool.Default.PoolId"
            ),
            ("v5.json", #"{"Auth": {"region": "us-east-1", "userPoolId": "your-user-pool-id", "userPoolWebClientId": "c"}}"#, "Auth.userPoolId"),
        ]
        for (name, text, key) in cases {
            let file = folder.appendingPathComponent(name)
            try Data(text.utf8).write(to: file)
            let run = try await Tool.run(["config", "check", file.path])
            #expect(run.exitCode == 1, "\(name)")
            #expect(
                run.stderr.contains(
                    "error: `\(key)` in \(file.path) is \"your-user-pool-id\"; expected a pool id such as us-east-1_AbCdEfGhI (it is read as `auth.plugins.awsCognitoAuthPlugin.CognitoUserPool.Default.PoolId`)."
                ),
                "\(name): \(run.stderr)")
            #expect(run.stderr.contains("how to fix: Set `\(key)` to a pool id such as us-east-1_AbCdEfGhI"), "\(name)")
        }
    }

    @Test("a user pool whose id names another region than the file's region is a warning naming the file's own key; --strict fails on it")
    func regionMismatchWarns() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("region-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("aws-exports.json")
        try Data(
            #"{"aws_project_region": "ap-northeast-1", "aws_cognito_region": "ap-northeast-1", "aws_user_pools_id": "us-east-1_pVissLBD7", "aws_user_pools_web_client_id": "c"}"#
                .utf8
        ).write(to: file)
        let run = try await Tool.run(["config", "check", file.path])
        #expect(run.exitCode == 0)
        #expect(
            run.stderr.contains(
                "warning: `aws_cognito_region` (read as `auth.plugins.awsCognitoAuthPlugin.CognitoUserPool.Default.Region`) in \(file.path): the region is ap-northeast-1, but the user pool us-east-1_pVissLBD7 is in us-east-1; calls go to ap-northeast-1, where Cognito will not find the pool."
            ),
            "\(run.stderr)")
        let strict = try await Tool.run(["config", "check", "--strict", file.path])
        #expect(strict.exitCode == 1)
    }

    @Test("a full Gen 1 iOS file: Cognito, S3 and both APIs configure, Pinpoint warns, geo/predictions are not handled, every resource is named")
    func gen1Full() async throws {
        let result = try await check("gen1-ios-full.json")
        #expect(result.exitCode == 0)
        #expect(
            result.plugins == ["auth.awsCognitoAuthPlugin", "analytics.awsPinpointAnalyticsPlugin", "storage.awsS3StoragePlugin", "api.awsAPIPlugin"])
        #expect(result.warnings == ["analytics.plugins.awsPinpointAnalyticsPlugin"])
        #expect(result.skipped == ["geo", "predictions"])
        #expect(
            result.resources == [
                "user pool us-east-1_NotesPool", "identity pool us-east-1:4a5b6c7d-1111-2222-3333-444455556666",
                "hosted UI notesapp-dev.auth.us-east-1.amazoncognito.com", "Pinpoint app (retired, not used) abcdef0123456789abcdef0123456789",
                "bucket notesapp-storage-dev", "REST API https://abcde12345.execute-api.us-east-1.amazonaws.com/dev",
                "GraphQL API https://abcdefghijklmnopqrstuvwxyz.appsync-api.us-east-1.amazonaws.com/graphql",
            ])
        #expect(try await check("gen1-ios-full.json", strict: true).exitCode == 1)
    }

    @Test("an Amplify JS v6 object's API.Events is checked and shown as an Events API; Analytics.Kinesis stays not handled")
    func amplifyJSEvents() async throws {
        let result = try await check("js-v6-unread-blocks.json")
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.plugins.contains("api.awsAPIPlugin"))
        #expect(result.resources.contains("Events API https://sixevents0123456789abcdefgh.appsync-api.sa-east-1.amazonaws.com/event"))
    }

    @Test("identity pool only, user pool only, and a hand-edited CRLF file with nulls all configure without warnings")
    func cognitoShapes() async throws {
        for name in ["gen1-identity-pool-only.json", "gen1-user-pool-only.json", "gen1-hand-edited.json", "awsconfiguration-guest.json"] {
            let result = try await check(name)
            #expect(result.exitCode == 0, "\(name): \(result.stderr)")
            #expect(result.error == nil, "\(name)")
            #expect(result.plugins.contains("auth.awsCognitoAuthPlugin"), "\(name)")
        }
        #expect(
            try await check("gen1-identity-pool-only.json").resources == [
                "identity pool eu-central-1:0f1e2d3c-aaaa-bbbb-cccc-ddddeeeeffff", "bucket guestphotos-dev",
            ])
        let guest = try await check("awsconfiguration-guest.json")
        #expect(guest.format == "awsconfiguration.json")
        #expect(guest.warnings == ["analytics.plugins.awsPinpointAnalyticsPlugin"])
        #expect(guest.resources.contains("GraphQL API https://zyxwvutsrqponmlkjihgfedcba.appsync-api.us-east-2.amazonaws.com/graphql"))
    }

    @Test("the Amplify JS files configure Cognito, S3 and their APIs, and name the APIs")
    func amplifyJS() async throws {
        let flat = try await check("aws-exports.json")
        #expect(flat.exitCode == 0)
        #expect(flat.format == "Amplify JS configuration (aws-exports shape)")
        #expect(
            flat.plugins == ["auth.awsCognitoAuthPlugin", "analytics.awsPinpointAnalyticsPlugin", "storage.awsS3StoragePlugin", "api.awsAPIPlugin"])
        #expect(flat.resources.contains("GraphQL API https://jsflatapi0123456789abcdefg.appsync-api.us-west-2.amazonaws.com/graphql"))
        #expect(flat.resources.contains("REST API https://orders1234.execute-api.us-west-2.amazonaws.com/dev"))
        let resources = try await check("js-v6-resources.json")
        #expect(resources.exitCode == 0)
        #expect(resources.plugins == ["auth.awsCognitoAuthPlugin", "storage.awsS3StoragePlugin", "api.awsAPIPlugin"])
        #expect(resources.resources.filter { $0.hasPrefix("bucket ") } == ["bucket jssix-archive", "bucket jssix-media"])
    }

    @Test("Gen 2 files of versions 1, 1.4 and 1.5 configure; 1.4's extra key warns; version 2 fails naming the versions known")
    func gen2() async throws {
        #expect(try await check("amplify_outputs-v1.json").exitCode == 0)
        let full = try await check("amplify_outputs-v1.4.json")
        #expect(full.exitCode == 0)
        #expect(full.format == "Gen 2 amplify_outputs.json version 1.4")
        #expect(full.warnings == ["websocket"])
        #expect(full.resources.filter { $0.hasPrefix("bucket ") } == ["bucket gentwo-photos-bucket", "bucket gentwo-reports-bucket"])
        #expect(full.resources.contains("GraphQL API https://gentwov14api.appsync-api.us-east-1.amazonaws.com/graphql"))
        #expect(try await check("amplify_outputs-v1.5.json").exitCode == 0)
        let future = try await check("amplify_outputs-v2.json")
        #expect(future.exitCode == 1)
        #expect(
            future.error?.hasSuffix("has `version` \"2.0\", which this package does not know; it reads versions 1, 1.1, 1.2, 1.3, 1.4, 1.5.") == true)
        let placeholder = try await check("amplify_outputs-placeholder.json")
        #expect(placeholder.exitCode == 0)
        #expect(placeholder.stderr.contains("holds no resources (a placeholder)"))
    }

    @Test("every amplify command works on the embedded default: storage put/get and analytics record")
    func embeddedDefaultServesEveryCategory() async throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("cli-embedded-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("amplifyconfiguration.json")
        try FileManager.default.copyItem(at: Tool.samples.appendingPathComponent("embedded.json"), to: config)
        let file = folder.appendingPathComponent("hello.txt")
        try Data("hello".utf8).write(to: file)
        let put = try await Tool.run(["storage", "put", "public/hello.txt", file.path], in: folder)
        #expect(put.exitCode == 0, "\(put.stderr)")
        let get = try await Tool.run(["storage", "get", "public/hello.txt", "-"], in: folder)
        #expect(get.exitCode == 0, "\(get.stderr)")
        #expect(get.stdout == "hello")
        let record = try await Tool.run(["analytics", "record", "opened"], in: folder)
        #expect(record.exitCode == 0, "\(record.stderr)")
    }
}
