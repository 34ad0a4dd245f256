import AWSCognitoAuthPlugin
import AWSPluginsCore
import Amplify
import AmplifyConcurrency
import AmplifyCrypto
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

@Suite("Token verifier: fetching the JWKS under concurrency and failure")
struct VerifierFetchTests {
    @Test("20 concurrent first verifications on a fresh verifier all wait for the one JWKS fetch and pass")
    func concurrentFirstVerifications() async throws {
        let server = try await LocalHTTPServer.start()
        defer { server.stop() }
        let loop = try EventLoop(name: "verifier-fetch")
        let http = try HTTPClient(loop: loop)
        let forge = TokenForge(key: try RSAKey.generate(), kid: "k1")
        try await store(["keys": [try forge.jwk()]], at: server.url("/stored/jwks"), http: http)
        let verifier = CognitoTokenVerifier(issuer: "https://issuer.test/pool", jwksURL: server.url("/stored/jwks"), clientIds: ["app"], http: http)
        let token = try forge.token(TokenForge.claims())
        let outcomes = await withTaskGroup(of: String.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    do { return try await verifier.verify(token, as: .id).subject } catch { return "\(error)" }
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(outcomes == Array(repeating: "user-1", count: 20), "\(outcomes)")
        #expect(await verifier.fetchCount == 1)
        await http.shutdown()
        try loop.shutdown()
    }

    @Test("a JWKS unreachable at first use is retried after a short backoff, not refused for the whole refetch interval")
    func unreachableAtFirstUseRetriesWithBackoff() async throws {
        let server = try await LocalHTTPServer.start()
        defer { server.stop() }
        let loop = try EventLoop(name: "verifier-fetch")
        let http = try HTTPClient(loop: loop)
        let forge = TokenForge(key: try RSAKey.generate(), kid: "k1")
        let jwks = server.url("/stored/late-jwks")
        let clock = Locked(Date())
        let verifier = CognitoTokenVerifier(
            issuer: "https://issuer.test/pool", jwksURL: jwks, clientIds: ["app"], http: http, refetchInterval: 60, now: { clock.value })
        let token = try forge.token(TokenForge.claims())

        // Not published yet (404): refused as unavailable, not as an unknown key.
        await #expect { _ = try await verifier.verify(token, as: .id) } throws: { error in
            if case CognitoTokenError.keysUnavailable = error { return true }
            return false
        }
        #expect(await verifier.fetchCount == 1)
        // Within the first backoff (1 s) nothing is fetched: a flood of tokens cannot hammer the pool.
        clock.withLock { $0 = $0.addingTimeInterval(0.5) }
        for _ in 0..<5 { _ = try? await verifier.verify(token, as: .id) }
        #expect(await verifier.fetchCount == 1)
        // A second failure doubles the wait.
        clock.withLock { $0 = $0.addingTimeInterval(0.6) }
        _ = try? await verifier.verify(token, as: .id)
        #expect(await verifier.fetchCount == 2)
        clock.withLock { $0 = $0.addingTimeInterval(1.5) }
        _ = try? await verifier.verify(token, as: .id)
        #expect(await verifier.fetchCount == 2)

        // The keys appear; a few seconds later (well inside the 60 s interval) the token passes.
        try await store(["keys": [try forge.jwk()]], at: jwks, http: http)
        clock.withLock { $0 = $0.addingTimeInterval(1) }
        #expect(try await verifier.verify(token, as: .id).subject == "user-1")
        #expect(await verifier.fetchCount == 3)
        await http.shutdown()
        try loop.shutdown()
    }

    private func store(_ document: JSONValue, at url: URL, http: HTTPClient) async throws {
        let body = Array(try JSONEncoder().encode(document))
        let response = try await http.send(HTTPRequest(method: "PUT", url: url, body: .bytes(body)))
        #expect(response.status == 204)
    }
}
