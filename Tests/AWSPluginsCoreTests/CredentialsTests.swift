import AWSPluginsCore
import Foundation
import Testing

@Suite("AWS credentials")
struct CredentialsTests {
    private func folder() throws -> String {
        let path = NSTemporaryDirectory() + "aws-profile-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path + "/.aws", withIntermediateDirectories: true)
        return path
    }

    @Test("the environment provider reads the three variables and says which are missing")
    func environment() async throws {
        let provider = EnvironmentCredentialsProvider(environment: [
            "AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_SESSION_TOKEN": "token",
        ])
        #expect(try await provider.credentials() == AWSCredentials(accessKeyId: "AKID", secretAccessKey: "secret", sessionToken: "token"))
        await #expect(throws: AWSPluginsError.self) {
            try await EnvironmentCredentialsProvider(environment: ["AWS_ACCESS_KEY_ID": "AKID"]).credentials()
        }
    }

    @Test("profiles come from ~/.aws/credentials first, then [profile x] in ~/.aws/config; AWS_PROFILE picks one")
    func profiles() async throws {
        let home = try folder()
        defer { try? FileManager.default.removeItem(atPath: home) }
        try """
        # comment
        [default]
        aws_access_key_id = AKIDDEFAULT
        aws_secret_access_key = secretdefault

        [work]
        aws_access_key_id=AKIDWORK
        aws_secret_access_key=secretwork
        aws_session_token = tokenwork
        """.write(toFile: home + "/.aws/credentials", atomically: true, encoding: .utf8)
        try """
        [profile ci]
        aws_access_key_id = AKIDCI
        aws_secret_access_key = secretci
        region = eu-west-1
        """.write(toFile: home + "/.aws/config", atomically: true, encoding: .utf8)
        #expect(try await ProfileCredentialsProvider(environment: ["HOME": home]).credentials().accessKeyId == "AKIDDEFAULT")
        let work = try await ProfileCredentialsProvider(environment: ["HOME": home, "AWS_PROFILE": "work"]).credentials()
        #expect(work == AWSCredentials(accessKeyId: "AKIDWORK", secretAccessKey: "secretwork", sessionToken: "tokenwork"))
        #expect(try await ProfileCredentialsProvider(profile: "ci", environment: ["HOME": home]).credentials().accessKeyId == "AKIDCI")
        await #expect(throws: AWSPluginsError.self) {
            try await ProfileCredentialsProvider(profile: "missing", environment: ["HOME": home]).credentials()
        }
    }

    @Test("the chain takes the first provider that has keys, and explains every miss otherwise")
    func chain() async throws {
        let home = try folder()
        defer { try? FileManager.default.removeItem(atPath: home) }
        try "[default]\naws_access_key_id = AKIDFILE\naws_secret_access_key = s\n".write(
            toFile: home + "/.aws/credentials", atomically: true, encoding: .utf8)
        #expect(try await CredentialsProviderChain.default(environment: ["HOME": home]).credentials().accessKeyId == "AKIDFILE")
        #expect(
            try await CredentialsProviderChain.default(environment: ["HOME": home, "AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "s"])
                .credentials().accessKeyId == "AKIDENV")
        do {
            _ = try await CredentialsProviderChain.default(environment: ["HOME": home + "/nowhere"]).credentials()
            Issue.record("found credentials where there are none")
        } catch let error as AWSPluginsError {
            #expect(error.code == "CredentialsNotFound")
            #expect(error.errorDescription.contains("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not both set."))
            #expect(error.errorDescription.contains("Profile 'default' has no keys"))
        }
    }

    @Test("the cache asks once for many callers and again only near expiry")
    func caching() async throws {
        let counter = CountingProvider(lifetime: 3600)
        let cache = CachingCredentialsProvider(counter)
        async let a = cache.credentials()
        async let b = cache.credentials()
        _ = try await (a, b)
        _ = try await cache.credentials()
        #expect(await counter.calls == 1)
        let shortLived = CountingProvider(lifetime: 10)
        let eager = CachingCredentialsProvider(shortLived, refreshMargin: 60)
        _ = try await eager.credentials()
        _ = try await eager.credentials()
        #expect(await shortLived.calls == 2)
    }
}

/// Hands out temporary credentials living `lifetime` seconds, counting calls.
actor CountingProvider: AWSCredentialsProvider {
    let lifetime: TimeInterval
    private(set) var calls = 0

    init(lifetime: TimeInterval) { self.lifetime = lifetime }

    func credentials() async throws -> AWSCredentials {
        calls += 1
        try await Task.sleep(for: .milliseconds(20))
        return AWSCredentials(accessKeyId: "ASIA\(calls)", secretAccessKey: "s", sessionToken: "t", expiration: Date().addingTimeInterval(lifetime))
    }
}
