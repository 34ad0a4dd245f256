import Foundation
import Testing

@Suite("amplify config check")
struct ConfigCheckCommandTests {
    private func sample(_ name: String) -> String { Tool.samples.appendingPathComponent(name).path }

    @Test("the embedded sample is accepted, summarised, and exits 0")
    func embeddedSample() throws {
        let run = try Tool.run(["config", "check", "--config", sample("embedded.json")])
        #expect(run.exitCode == 0)
        #expect(run.stdout == """
            Configuration: \(sample("embedded.json"))
            Logging:
              consoleLoggingPlugin — logLevel: warn
            Hub:
              defaultHubPlugin — slowListenerThresholdMilliseconds: 100
            Auth:
              localAuthPlugin — accessTokenLifetimeSeconds: 3600, directory: .amplify/local-auth, signUpRequiresConfirmation: true
            Analytics:
              localAnalyticsPlugin — autoFlushEventsInterval: 60, directory: .amplify/analytics

            OK: Amplify.configure() accepted every plugin (4 in all).

            """)
        #expect(run.stderr.isEmpty)
    }

    @Test("the CLI's Gen 1 file is summarised with its key facts; Cognito and S3 configure, the retired Pinpoint block fails with exit 1")
    func gen1Sample() throws {
        let run = try Tool.run(["config", "check", "--config", sample("amplifyconfiguration.json")])
        #expect(run.stdout.contains("  awsCognitoAuthPlugin — user pool: us-east-1_AbCdEfGhI, app client: abcdefghij0123456789, region: us-east-1, identity pool: us-east-1:00000000-0000-0000-0000-000000000000, sign-in flow: USER_SRP_AUTH"))
        #expect(run.stdout.contains("  awsS3StoragePlugin — bucket: myapp-storage-dev, region: us-east-1, default access level: guest"))
        #expect(run.exitCode == 1)
        #expect(run.stderr.contains("error: `analytics.plugins.awsPinpointAnalyticsPlugin`"))
        #expect(!run.stderr.contains("auth.plugins"))
        #expect(run.stderr.contains("how to fix: "))
    }

    @Test("secrets in a plugin block are reported as set, never printed")
    func secretsHidden() throws {
        let run = try Tool.run(["config", "check", "--config", sample("amplifyconfiguration-oauth-secret.json")])
        #expect(run.stdout.contains("client secret: set"))
        #expect(!run.stdout.contains("s3cr3t"))
        #expect(run.stdout.contains("endpoint: http://127.0.0.1:5000"))
        #expect(run.stdout.contains("hosted UI: myapp-dev.auth.eu-west-1.amazoncognito.com"))
    }

    @Test("Gen 2 outputs and awsconfiguration.json are summarised in the category shape")
    func otherShapes() throws {
        let gen2 = try Tool.run(["config", "check", "--config", sample("amplify_outputs.json")])
        #expect(gen2.stdout.contains("user pool: us-west-2_Gen2Pool1"))
        #expect(gen2.stdout.contains("bucket: amplify-gen2-storage-bucket, region: us-west-2"))
        let legacy = try Tool.run(["config", "check", "--config", sample("awsconfiguration.json")])
        #expect(legacy.stdout.contains("user pool: ap-southeast-2_LegacyPl1"))
        #expect(legacy.stdout.contains("bucket: legacy-transfer-bucket"))
    }

    @Test("--json prints one JSON document on stdout and the diagnostics on stderr")
    func jsonOutput() throws {
        let run = try Tool.run(["--json", "config", "check", "--config", sample("embedded.json")])
        #expect(run.exitCode == 0)
        let document = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        #expect(document?["ok"] as? Bool == true)
        let categories = document?["categories"] as? [[String: Any]]
        #expect(categories?.map { $0["category"] as? String } == ["logging", "hub", "auth", "analytics"])
        let failing = try Tool.run(["config", "check", "--json", "--config", sample("amplifyconfiguration.json")])
        let failed = try JSONSerialization.jsonObject(with: Data(failing.stdout.utf8)) as? [String: Any]
        #expect(failed?["ok"] as? Bool == false)
        #expect((failed?["error"] as? [String: Any])?["description"] as? String != nil)
        #expect(failing.stderr.contains("error: "))
    }

    @Test("a missing file and a syntax error exit 1 with the problem and the fix")
    func badFiles() throws {
        let missing = try Tool.run(["config", "check", "--config", "/nonexistent/amplifyconfiguration.json"])
        #expect(missing.exitCode == 1)
        #expect(missing.stderr.contains("error: Configuration file not found: /nonexistent/amplifyconfiguration.json."))
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("{\n  \"hub\": {,}\n}\n".utf8).write(to: folder.appendingPathComponent("amplifyconfiguration.json"))
        let broken = try Tool.run(["config", "check"], in: folder)
        #expect(broken.exitCode == 1)
        #expect(broken.stderr.contains("is not valid JSON"))
        #expect(broken.stderr.contains("(line 2, column 11)"))
        let none = try Tool.run(["config", "check"], in: URL(fileURLWithPath: "/"))
        #expect(none.exitCode == 1)
        #expect(none.stderr.contains("No configuration file found"))
    }

    @Test("$AMPLIFY_CONFIG is used when --config is absent")
    func environmentVariable() throws {
        let run = try Tool.run(["config", "check"], environment: ["AMPLIFY_CONFIG": sample("embedded.json")])
        #expect(run.exitCode == 0)
        #expect(run.stdout.hasPrefix("Configuration: \(sample("embedded.json"))"))
    }
}
