import Foundation
import Testing

@Suite("amplify config check")
struct ConfigCheckCommandTests {
    private func sample(_ name: String) -> String { Tool.samples.appendingPathComponent(name).path }

    @Test("the embedded sample is accepted, summarised with its resources, and exits 0")
    func embeddedSample() async throws {
        let run = try await Tool.run(["config", "check", "--config", sample("embedded.json")])
        #expect(run.exitCode == 0)
        #expect(
            run.stdout == """
                Configuration: \(sample("embedded.json")) (Gen 1 amplifyconfiguration.json)
                Logging:
                  swiftLogLoggingPlugin — logLevel: warn
                Hub:
                  defaultHubPlugin — slowListenerThresholdMilliseconds: 100
                Auth:
                  localAuthPlugin — accessTokenLifetimeSeconds: 3600, directory: .amplify/local-auth, signUpRequiresConfirmation: true
                Analytics:
                  localAnalyticsPlugin — autoFlushEventsInterval: 60, directory: .amplify/analytics
                Storage:
                  localStoragePlugin — directory: .amplify/storage
                Resources:
                  local user pool .amplify/local-auth
                  local analytics folder .amplify/analytics
                  local storage folder .amplify/storage

                OK: Amplify.configure() accepted the configuration (5 plugins configured).

                """)
        #expect(run.stderr.isEmpty)
    }

    @Test("the CLI's Gen 1 file configures Cognito and S3 and exits 0; the retired Pinpoint block is a warning line, and --strict makes it fail")
    func gen1Sample() async throws {
        let run = try await Tool.run(["config", "check", "--config", sample("amplifyconfiguration.json")])
        #expect(
            run.stdout.contains(
                "  awsCognitoAuthPlugin — user pool: us-east-1_AbCdEfGhI, app client: abcdefghij0123456789, region: us-east-1, identity pool: us-east-1:00000000-0000-0000-0000-000000000000, sign-in flow: USER_SRP_AUTH"
            ))
        #expect(run.stdout.contains("  awsS3StoragePlugin — bucket: myapp-storage-dev, region: us-east-1, default access level: guest"))
        #expect(
            run.stdout.contains(
                """
                Resources:
                  user pool us-east-1_AbCdEfGhI (region: us-east-1, app client: abcdefghij0123456789)
                  identity pool us-east-1:00000000-0000-0000-0000-000000000000 (region: us-east-1)
                  Pinpoint app (retired, not used) 0123456789abcdef (region: us-east-1)
                  bucket myapp-storage-dev (region: us-east-1)
                """))
        #expect(run.stdout.contains("OK: Amplify.configure() accepted the configuration (2 plugins configured; 1 warning)."))
        #expect(run.exitCode == 0)
        #expect(
            run.stderr == """
                warning: `analytics.plugins.awsPinpointAnalyticsPlugin` in \(sample("amplifyconfiguration.json")) names Amazon Pinpoint, which reached end of support on 2026-10-30; the block is skipped.
                  Replace the block with an `awsKinesisAnalyticsPlugin` block (Kinesis Data Streams or Firehose) or a `localAnalyticsPlugin` block.

                """)
        let strict = try await Tool.run(["config", "check", "--strict", "--config", sample("amplifyconfiguration.json")])
        #expect(strict.exitCode == 1)
        #expect(strict.stderr.contains("warning: `analytics.plugins.awsPinpointAnalyticsPlugin`"))
        #expect(strict.stderr.contains("error: --strict: 1 warning in \(sample("amplifyconfiguration.json"))."))
    }

    @Test("the file may be given as an argument instead of --config; two different files are a usage error")
    func fileAsArgument() async throws {
        let byOption = try await Tool.run(["config", "check", "--config", sample("embedded.json")])
        let byArgument = try await Tool.run(["config", "check", sample("embedded.json")])
        #expect(byArgument.exitCode == 0)
        #expect(byArgument.stdout == byOption.stdout)
        let both = try await Tool.run(["config", "check", "--config", sample("embedded.json"), sample("amplifyconfiguration.json")])
        #expect(both.exitCode == 2)
        #expect(both.stderr.contains("Two files given"))
    }

    @Test("secrets in a plugin block are reported as set, never printed")
    func secretsHidden() async throws {
        let run = try await Tool.run(["config", "check", "--config", sample("amplifyconfiguration-oauth-secret.json")])
        #expect(run.stdout.contains("client secret: set"))
        #expect(!run.stdout.contains("s3cr3t"))
        #expect(run.stdout.contains("endpoint: http://127.0.0.1:5000"))
        #expect(run.stdout.contains("hosted UI: myapp-dev.auth.eu-west-1.amazoncognito.com"))
    }

    @Test("Gen 2 outputs and awsconfiguration.json are summarised in the category shape")
    func otherShapes() async throws {
        let gen2 = try await Tool.run(["config", "check", "--config", sample("amplify_outputs.json")])
        #expect(gen2.stdout.contains("user pool: us-west-2_Gen2Pool1"))
        #expect(gen2.stdout.contains("bucket: amplify-gen2-storage-bucket, region: us-west-2"))
        let legacy = try await Tool.run(["config", "check", "--config", sample("awsconfiguration.json")])
        #expect(legacy.stdout.contains("user pool: ap-southeast-2_LegacyPl1"))
        #expect(legacy.stdout.contains("bucket: legacy-transfer-bucket"))
    }

    @Test("--json prints one JSON document on stdout and the diagnostics on stderr")
    func jsonOutput() async throws {
        let run = try await Tool.run(["--json", "config", "check", "--config", sample("embedded.json")])
        #expect(run.exitCode == 0)
        let document = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        #expect(document?["ok"] as? Bool == true)
        let categories = document?["categories"] as? [[String: Any]]
        #expect(categories?.map { $0["category"] as? String } == ["logging", "hub", "auth", "analytics", "storage"])
        #expect((document?["resources"] as? [[String: Any]])?.count == 3)
        let warned = try await Tool.run(["config", "check", "--json", "--config", sample("amplifyconfiguration.json")])
        let warnedDocument = try JSONSerialization.jsonObject(with: Data(warned.stdout.utf8)) as? [String: Any]
        #expect(warnedDocument?["ok"] as? Bool == true)
        #expect((warnedDocument?["warnings"] as? [[String: Any]])?.first?["path"] as? String == "analytics.plugins.awsPinpointAnalyticsPlugin")
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let bad = folder.appendingPathComponent("amplifyconfiguration.json")
        try Data(#"{"auth": {"plugins": {"localAuthPlugin": {"directory": 5}}}}"#.utf8).write(to: bad)
        let failing = try await Tool.run(["config", "check", "--json", "--config", bad.path])
        let failed = try JSONSerialization.jsonObject(with: Data(failing.stdout.utf8)) as? [String: Any]
        #expect(failed?["ok"] as? Bool == false)
        #expect((failed?["error"] as? [String: Any])?["description"] as? String != nil)
        #expect(failing.stderr.contains("error: "))
    }

    @Test("a missing file and a syntax error exit 1 with the problem and the fix")
    func badFiles() async throws {
        let missing = try await Tool.run(["config", "check", "--config", "/nonexistent/amplifyconfiguration.json"])
        #expect(missing.exitCode == 1)
        #expect(missing.stderr.contains("error: Configuration file not found: /nonexistent/amplifyconfiguration.json."))
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("{\n  \"hub\": {,}\n}\n".utf8).write(to: folder.appendingPathComponent("amplifyconfiguration.json"))
        let broken = try await Tool.run(["config", "check"], in: folder)
        #expect(broken.exitCode == 1)
        #expect(broken.stderr.contains("is not valid JSON"))
        #expect(broken.stderr.contains("(line 2, column 11)"))
        let none = try await Tool.run(["config", "check"], in: URL(fileURLWithPath: "/"))
        #expect(none.exitCode == 1)
        #expect(none.stderr.contains("No configuration file found"))
    }

    @Test("$AMPLIFY_CONFIG is used when --config is absent")
    func environmentVariable() async throws {
        let run = try await Tool.run(["config", "check"], environment: ["AMPLIFY_CONFIG": sample("embedded.json")])
        #expect(run.exitCode == 0)
        #expect(run.stdout.hasPrefix("Configuration: \(sample("embedded.json")) (Gen 1 amplifyconfiguration.json)"))
    }

    @Test("numbers beyond Int64 in a block are summarised and refused with their range, not a crash")
    func hugeNumbers() async throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("amplifyconfiguration.json")
        try Data(#"{"auth": {"plugins": {"localAuthPlugin": {"accessTokenLifetimeSeconds": 1e20, "passwordHashCost": 9223372036854775807}}}}"#.utf8)
            .write(to: file)
        let run = try await Tool.run(["config", "check", "--config", file.path])
        #expect(run.exitCode == 1)
        #expect(run.stdout.contains("accessTokenLifetimeSeconds: 1e+20"))
        #expect(run.stderr.contains("error: `auth.plugins.localAuthPlugin."))
    }

    @Test(
        "keys and values of the file are printed with their control characters escaped: ESC and BEL cannot reach the terminal, CR and LF cannot add lines"
    )
    func controlCharactersEscaped() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("config-escape-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("amplifyconfiguration.json")
        let hostile = #"\u001b[2J\u0007\r\nOK: forged"#
        for body in [
            #"{"geo\#(hostile)": {"plugins": {}}, "storage": {"plugins": {"localStoragePlugin\#(hostile)": {"directory": "s"}}}}"#,
            #"{"auth": {"plugins": {"awsCognitoAuthPlugin": {"CognitoUserPool": {"Default": {"PoolId": "pool\#(hostile)", "AppClientId": "c", "Region": "us-east-1"}}}}}}"#,
        ] {
            try Data(body.utf8).write(to: file)
            let run = try await Tool.run(["config", "check", file.path])
            let printed = run.stdout + run.stderr
            #expect(printed.contains("\\u{1B}[2J"), "\(printed)")
            #expect(!printed.unicodeScalars.contains { [0x1B, 0x07, 0x0D].contains($0.value) }, "\(printed)")
            #expect(!printed.split(separator: "\n").contains { $0.hasPrefix("OK: forged") })
        }
    }
}
