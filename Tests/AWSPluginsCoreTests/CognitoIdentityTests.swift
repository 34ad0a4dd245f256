import AWSPluginsCore
import Amplify
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

@Suite("Cognito identity pool credentials")
struct CognitoIdentityTests {
    private func withIdentityService(_ body: (AWSJSONClient) async throws -> Void) async throws {
        let server = try await LocalHTTPServer.start()
        let loop = try EventLoop(name: "identity-test")
        let http = try HTTPClient(loop: loop)
        defer { server.stop() }
        try await body(AWSJSONClient(http: http, endpoint: server.url("/json"), region: "us-east-1", signingName: "cognito-identity"))
        await http.shutdown()
        try loop.shutdown()
    }

    @Test("a guest gets an identity once and temporary credentials with their expiry")
    func guest() async throws {
        try await withIdentityService { client in
            let provider = CognitoIdentityCredentialsProvider(client: client, identityPoolId: "us-east-1:pool")
            let first = try await provider.credentials()
            let identity = try #require(await provider.currentIdentityId)
            #expect(identity.hasPrefix("us-east-1:guest-"))
            #expect(first.sessionToken == "token-\(identity)")
            #expect((first.expiration?.timeIntervalSinceNow ?? 0) > 3_500)
            _ = try await provider.credentials()
            #expect(await provider.currentIdentityId == identity)
        }
    }

    @Test("with the user pool's ID token the identity is the user's, and the cache asks once")
    func authenticated() async throws {
        try await withIdentityService { client in
            let provider = CognitoIdentityCredentialsProvider(client: client, identityPoolId: "us-east-1:pool") {
                ["cognito-idp.us-east-1.amazonaws.com/us-east-1_pool": "id-token-of-alice"]
            }
            let cached = CachingCredentialsProvider(provider)
            let credentials = try await cached.credentials()
            #expect(credentials.accessKeyId.hasPrefix("ASIA"))
            #expect(await provider.currentIdentityId?.hasPrefix("us-east-1:user-") == true)
            _ = try await cached.credentials()
            let counter = AWSJSONClient(http: client.http, endpoint: client.endpoint, region: "us-east-1", signingName: "test")
            #expect(try await counter.call("Test.Count", ["of": "credentials"], signed: false)["count"] == 1)
        }
    }

    @Test("a wrong identity pool id arrives as ResourceNotFoundException")
    func wrongPool() async throws {
        try await withIdentityService { client in
            do {
                _ = try await CognitoIdentityCredentialsProvider(client: client, identityPoolId: "us-east-1:other").credentials()
                Issue.record("credentials from a missing pool")
            } catch let error as AWSPluginsError {
                #expect(error.code == "ResourceNotFoundException")
                #expect(error.recoverySuggestion.contains("region"))
            }
        }
    }
}
