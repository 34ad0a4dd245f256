import AWSPluginsCore
import Amplify
import AmplifyCrypto
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

/// The AWS plumbing against moto_server (each test starts its own on a free loopback port).
@Suite("AWS plumbing against moto_server")
struct MotoIntegrationTests {
    /// A loop, an HTTP client and a moto_server for one test, all stopped afterwards.
    private func withMoto(_ body: (MotoServer, HTTPClient) async throws -> Void) async throws {
        try await MotoServer.with { moto in
            let loop = try EventLoop(name: "moto-test")
            let http = try HTTPClient(loop: loop)
            do {
                try await body(moto, http)
            } catch {
                await http.shutdown()
                try loop.shutdown()
                throw error
            }
            await http.shutdown()
            try loop.shutdown()
        }
    }

    private func s3(_ http: HTTPClient, _ moto: MotoServer, bucket: String, _ keys: AWSCredentials) throws -> (AWSRESTClient, S3Addressing) {
        let addressing = try S3Addressing(bucket: bucket, region: moto.region, configuredEndpoint: moto.endpoint.absoluteString)
        let client = AWSRESTClient(
            http: http, endpoint: addressing.endpoint, region: moto.region, credentials: StaticCredentialsProvider(keys),
            retryPolicy: RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(10)))
        return (client, addressing)
    }

    private func seededKeys(_ seeded: JSONValue) throws -> AWSCredentials {
        AWSCredentials(
            accessKeyId: try #require(seeded["accessKeyId"]?.stringValue),
            secretAccessKey: try #require(seeded["secretAccessKey"]?.stringValue))
    }

    private func temporaryFile(_ bytes: [UInt8]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("moto-\(UUID().uuidString)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("in moto's strict signature mode our S3 requests (bytes, streamed file, query, HEAD, DELETE) are accepted and a wrong secret is refused")
    func strictModeS3() async throws {
        try await withMoto { moto, http in
            let seeded = try moto.seed(["iamUser": "tester", "buckets": ["strict-bucket"]])
            try moto.setStrictSignatures(true)
            let keys = try seededKeys(seeded)
            let (client, bucket) = try s3(http, moto, bucket: "strict-bucket", keys)

            let small = Array("hello, signed world".utf8)
            _ = try await client.send(
                AWSRESTRequest(
                    method: "PUT", path: bucket.objectPath("greetings/hello world.txt"),
                    headers: [("Content-Type", "text/plain")], body: .bytes(small)))
            let large = try Digest.randomBytes(3 << 20)
            let file = try temporaryFile(large)
            defer { try? FileManager.default.removeItem(atPath: file) }
            _ = try await client.send(
                AWSRESTRequest(
                    method: "PUT", path: bucket.objectPath("data/large+1.bin"),
                    headers: [("Content-Type", "application/octet-stream")], body: .file(file)))

            let fetched = try await client.send(AWSRESTRequest(method: "GET", path: bucket.objectPath("greetings/hello world.txt")))
            #expect(fetched.body == small)
            let fetchedLarge = try await client.send(AWSRESTRequest(method: "GET", path: bucket.objectPath("data/large+1.bin")))
            #expect(Digest.sha256(fetchedLarge.body) == Digest.sha256(large))
            let head = try await client.send(AWSRESTRequest(method: "HEAD", path: bucket.objectPath("data/large+1.bin")))
            #expect(head.header("Content-Length") == String(large.count))

            let listing = try await client.sendForXML(
                AWSRESTRequest(
                    method: "GET", path: bucket.bucketPath, query: [("list-type", "2"), ("prefix", "greetings/")]))
            #expect(listing.children(named: "Contents").compactMap { $0.text(of: "Key") } == ["greetings/hello world.txt"])

            _ = try await client.send(AWSRESTRequest(method: "DELETE", path: bucket.objectPath("greetings/hello world.txt")))
            await #expect(throws: AWSPluginsError.self) {
                try await client.send(AWSRESTRequest(method: "GET", path: bucket.objectPath("greetings/hello world.txt")))
            }

            let forged = AWSCredentials(accessKeyId: keys.accessKeyId, secretAccessKey: keys.secretAccessKey + "x")
            let (forgedClient, _) = try s3(http, moto, bucket: "strict-bucket", forged)
            do {
                _ = try await forgedClient.send(AWSRESTRequest(method: "GET", path: bucket.objectPath("data/large+1.bin")))
                Issue.record("moto accepted a request signed with the wrong secret")
            } catch let error as AWSPluginsError {
                #expect(error.code == "SignatureDoesNotMatch")
                #expect(error.httpStatus == 403)
            }
        }
    }

    @Test("in moto's strict signature mode a signed JSON 1.1 call is accepted and one with a wrong secret is refused")
    func strictModeJSON() async throws {
        try await withMoto { moto, http in
            let seeded = try moto.seed(["iamUser": "tester", "userPool": ["name": "strict-pool"]])
            try moto.setStrictSignatures(true)
            let keys = try seededKeys(seeded)
            let client = AWSJSONClient(
                http: http, endpoint: moto.endpoint, region: moto.region, signingName: "cognito-idp",
                credentials: StaticCredentialsProvider(keys), retryPolicy: RetryPolicy(maxAttempts: 1))
            let pools = try await client.call("AWSCognitoIdentityProviderService.ListUserPools", ["MaxResults": 10])
            #expect(pools["UserPools"]?[0]?["Name"] == "strict-pool")

            let forged = AWSJSONClient(
                http: http, endpoint: moto.endpoint, region: moto.region, signingName: "cognito-idp",
                credentials: StaticCredentialsProvider(AWSCredentials(accessKeyId: keys.accessKeyId, secretAccessKey: "wrong")),
                retryPolicy: RetryPolicy(maxAttempts: 1))
            do {
                _ = try await forged.call("AWSCognitoIdentityProviderService.ListUserPools", ["MaxResults": 10])
                Issue.record("moto accepted a call signed with the wrong secret")
            } catch let error as AWSPluginsError {
                #expect(error.code == "SignatureDoesNotMatch")
                #expect(error.httpStatus == 403)
            }
        }
    }

    /// moto checks no presigned URL (in strict mode it answers 500 to any, botocore's too), so
    /// the signature itself is proven by the known-answer test in SigV4SignerTests.
    @Test("a presigned GET URL downloads the exact object with the plain curl tool")
    func presignedURLWithCurl() async throws {
        try await withMoto { moto, http in
            let seeded = try moto.seed(["iamUser": "tester", "buckets": ["shared-bucket"]])
            let (client, bucket) = try s3(http, moto, bucket: "shared-bucket", try seededKeys(seeded))
            let content = try Digest.randomBytes(256 * 1024)
            _ = try await client.send(
                AWSRESTRequest(
                    method: "PUT", path: bucket.objectPath("reports/2026 Q4.pdf"), headers: [("Content-Type", "application/pdf")],
                    body: .bytes(content)))
            let url = try await client.presignedURL(path: bucket.objectPath("reports/2026 Q4.pdf"), expires: 600)
            #expect(url.absoluteString.contains("X-Amz-Signature="))

            let output = FileManager.default.temporaryDirectory.appendingPathComponent("presigned-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: output) }
            let downloaded = try await runCurl(["-s", "-f", "-o", output, url.absoluteString])
            #expect(downloaded == 0)
            #expect(FileManager.default.contents(atPath: output).map { Digest.sha256(Array($0)) } == Digest.sha256(content))
        }
    }

    @Test("identity pool credentials from moto: a guest identity, and the user's own identity with the user pool's ID token")
    func identityPool() async throws {
        try await withMoto { moto, http in
            let seeded = try moto.seed([
                "userPool": [
                    "name": "users", "users": [["username": "alice", "password": "Secr3t!pass", "attributes": ["email": "alice@example.com"]]],
                ],
                "identityPool": ["name": "identities", "allowGuests": true],
            ])
            let poolId = try #require(seeded["userPoolId"]?.stringValue)
            let identityPoolId = try #require(seeded["identityPoolId"]?.stringValue)
            let identity = AWSJSONClient(http: http, endpoint: moto.endpoint, region: moto.region, signingName: "cognito-identity")
            let guest = CognitoIdentityCredentialsProvider(client: identity, identityPoolId: identityPoolId)
            let guestKeys = try await guest.credentials()
            #expect(!guestKeys.accessKeyId.isEmpty && guestKeys.sessionToken != nil)
            let guestId = try #require(await guest.currentIdentityId)
            #expect(guestId.hasPrefix("us-east-1:"))

            let userPool = AWSJSONClient(http: http, endpoint: moto.endpoint, region: moto.region, signingName: "cognito-idp")
            let signIn = try await userPool.call(
                "AWSCognitoIdentityProviderService.InitiateAuth",
                [
                    "AuthFlow": "USER_PASSWORD_AUTH", "ClientId": .string(try #require(seeded["clientId"]?.stringValue)),
                    "AuthParameters": ["USERNAME": "alice", "PASSWORD": "Secr3t!pass"],
                ], signed: false)
            let idToken = try #require(signIn["AuthenticationResult"]?["IdToken"]?.stringValue)
            let user = CognitoIdentityCredentialsProvider(client: identity, identityPoolId: identityPoolId) {
                ["cognito-idp.us-east-1.amazonaws.com/\(poolId)": idToken]
            }
            let userKeys = try await CachingCredentialsProvider(user).credentials()
            #expect(!userKeys.secretAccessKey.isEmpty)
            #expect(try #require(await user.currentIdentityId) != guestId)
        }
    }

    @Test("reset empties moto: a bucket seeded before is gone after")
    func resetEmpties() async throws {
        try await withMoto { moto, http in
            try moto.seed(["buckets": ["transient-bucket"]])
            let (client, bucket) = try s3(http, moto, bucket: "transient-bucket", AWSCredentials(accessKeyId: "testing", secretAccessKey: "testing"))
            _ = try await client.send(
                AWSRESTRequest(method: "PUT", path: bucket.objectPath("k"), headers: [("Content-Type", "text/plain")], body: .bytes([1])))
            try moto.reset()
            do {
                _ = try await client.send(AWSRESTRequest(method: "GET", path: bucket.objectPath("k")))
                Issue.record("the object survived the reset")
            } catch let error as AWSPluginsError {
                #expect(error.code == "NoSuchBucket")
            }
        }
    }

    @Test("a failing seed reports moto's refusal instead of crashing")
    func seedErrors() async throws {
        try await withMoto { moto, _ in
            #expect {
                try moto.seed(["buckets": ["x"]])
            } throws: { "\($0)".contains("InvalidBucketName") }
        }
    }

    private func runCurl(_ arguments: [String]) async throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl"] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.runSerialized()
        await process.exited()
        return process.terminationStatus
    }
}
