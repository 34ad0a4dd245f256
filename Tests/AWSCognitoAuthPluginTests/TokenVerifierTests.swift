import AWSCognitoAuthPlugin
import AWSPluginsCore
import Amplify
import AmplifyConcurrency
import AmplifyCrypto
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

/// Builds RS256 (and forged) tokens with keys of the test's own.
struct TokenForge {
    let key: RSAKey
    let kid: String

    static func encode(_ value: JSONValue) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Base64URL.encode(try encoder.encode(value))
    }

    func token(_ claims: JSONValue, alg: String = "RS256", kid: String? = nil) throws -> String {
        let input = try Self.encode(["alg": .string(alg), "kid": .string(kid ?? self.kid), "typ": "JWT"]) + "." + Self.encode(claims)
        return input + "." + Base64URL.encode(try key.sign(Array(input.utf8)))
    }

    func jwk() throws -> JSONValue {
        let (n, e) = try key.publicComponents()
        return [
            "kty": "RSA", "alg": "RS256", "use": "sig", "kid": .string(kid), "n": .string(Base64URL.encode(n)), "e": .string(Base64URL.encode(e)),
        ]
    }

    static func claims(
        use: String = "id", issuer: String = "https://issuer.test/pool", client: String = "app", expiresIn: TimeInterval = 600,
        extra: [String: JSONValue] = [:]
    ) -> JSONValue {
        var claims: [String: JSONValue] = [
            "sub": "user-1", "iss": .string(issuer), "token_use": .string(use),
            "exp": .number((Date().timeIntervalSince1970 + expiresIn).rounded()), "iat": .number(Date().timeIntervalSince1970.rounded()),
        ]
        claims[use == "id" ? "aud" : "client_id"] = .string(client)
        claims[use == "id" ? "cognito:username" : "username"] = "alice"
        for (key, value) in extra { claims[key] = value }
        return .object(claims)
    }
}

@Suite("Token verifier (JWKS)")
struct TokenVerifierTests {
    @Test("moto's real ID and access tokens verify against its JWKS; each refuses to pass as the other")
    func motoTokens() async throws {
        try await MotoServer.with { moto in
            let fixture = try CognitoFixture(moto: moto, pool: ["name": "jwks", "users": [alice]])
            let plugin = try fixture.plugin()
            _ = try await plugin.signIn(username: "alice", password: "Secr3t!pass", options: nil)
            let session = try #require(try await plugin.fetchAuthSession(options: nil) as? AWSAuthCognitoSession)
            let tokens = try session.getCognitoTokens().get()
            let verifier = try plugin.tokenVerifier()
            let id = try await verifier.verify(tokens.idToken, as: .id)
            #expect(id.subject == (try session.getUserSub().get()))
            #expect(id.username == "alice")
            let access = try await verifier.verify(tokens.accessToken, as: .access)
            #expect(access.username == "alice")
            await #expect(throws: CognitoTokenError.wrongTokenUse("access")) { _ = try await verifier.verify(tokens.accessToken, as: .id) }
            await #expect(throws: CognitoTokenError.wrongTokenUse("id")) { _ = try await verifier.verify(tokens.idToken, as: .access) }

            // A tampered payload (another sub) keeps the header and signature: refused.
            let parts = tokens.idToken.split(separator: ".").map(String.init)
            let claimBytes = try #require(Base64URL.decode(parts[1]))
            var claims = try JSONDecoder().decode(JSONValue.self, from: Data(claimBytes))
            if case .object(var object) = claims {
                object["sub"] = "someone-else"
                claims = .object(object)
            }
            let tampered = parts[0] + "." + (try TokenForge.encode(claims)) + "." + parts[2]
            await #expect(throws: CognitoTokenError.badSignature) { _ = try await verifier.verify(tampered, as: .id) }

            // Signed by another key under moto's key id: refused.
            let headerBytes = try #require(Base64URL.decode(parts[0]))
            let kid = try #require(try JSONDecoder().decode(JSONValue.self, from: Data(headerBytes))["kid"]?.stringValue)
            let forged = try TokenForge(key: RSAKey.generate(), kid: kid).token(claims)
            await #expect(throws: CognitoTokenError.badSignature) { _ = try await verifier.verify(forged, as: .id) }

            // The configured issuer is checked: another pool's verifier refuses.
            let settings = try await plugin.configuration()
            let strict = CognitoTokenVerifier(
                issuer: "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_other", jwksURL: settings.jwksURL, clientIds: [fixture.clientId],
                http: try HTTPClient(loop: fixture.loop))
            await #expect { _ = try await strict.verify(tokens.idToken, as: .id) } throws: { error in
                if case CognitoTokenError.wrongIssuer = error { return true }
                return false
            }
            try await fixture.close(plugin)
        }
    }

    @Test("alg none, HS256 keyed with the public key, wrong audience, expired and not-yet-valid tokens are refused")
    func forgedTokens() async throws {
        let server = try await LocalHTTPServer.start()
        defer { server.stop() }
        let loop = try EventLoop(name: "verifier")
        let http = try HTTPClient(loop: loop)
        let forge = TokenForge(key: try RSAKey.generate(), kid: "k1")
        try await store(["keys": [try forge.jwk()]], at: server.url("/stored/jwks"), http: http)
        let verifier = CognitoTokenVerifier(
            issuer: "https://issuer.test/pool", jwksURL: server.url("/stored/jwks"), clientIds: ["app"], http: http, leeway: 5)

        let good = try forge.token(TokenForge.claims())
        #expect(try await verifier.verify(good, as: .id).subject == "user-1")

        let unsigned = try TokenForge.encode(["alg": "none", "kid": "k1"]) + "." + TokenForge.encode(TokenForge.claims()) + "."
        await #expect(throws: CognitoTokenError.unsupportedAlgorithm("none")) { _ = try await verifier.verify(unsigned, as: .id) }

        // Key confusion: HMAC keyed with the published public key, as a naive verifier would accept.
        let input = try TokenForge.encode(["alg": "HS256", "kid": "k1"]) + "." + TokenForge.encode(TokenForge.claims())
        let publicKeyBytes = try forge.key.publicComponents().modulus
        let confused = input + "." + Base64URL.encode(Digest.hmacSHA256(key: publicKeyBytes, Array(input.utf8)))
        await #expect(throws: CognitoTokenError.unsupportedAlgorithm("HS256")) { _ = try await verifier.verify(confused, as: .id) }

        await #expect(throws: CognitoTokenError.wrongAudience("other-app")) {
            _ = try await verifier.verify(try forge.token(TokenForge.claims(client: "other-app")), as: .id)
        }
        await #expect(throws: CognitoTokenError.expired) {
            _ = try await verifier.verify(try forge.token(TokenForge.claims(expiresIn: -10)), as: .id)
        }
        // Within the leeway an expired token still passes (clock skew).
        #expect(try await verifier.verify(try forge.token(TokenForge.claims(expiresIn: -2)), as: .id).subject == "user-1")
        let future = TokenForge.claims(extra: ["nbf": .number(Date().timeIntervalSince1970 + 300)])
        await #expect(throws: CognitoTokenError.notYetValid) { _ = try await verifier.verify(try forge.token(future), as: .id) }
        await #expect(throws: CognitoTokenError.malformed) { _ = try await verifier.verify("not.a.jwt", as: .id) }
        #expect(await verifier.fetchCount == 1)
        await http.shutdown()
        try loop.shutdown()
    }

    @Test("A rotated key is fetched when a token names it, but an unknown kid refetches at most once per interval")
    func keyRotationAndRateLimit() async throws {
        let server = try await LocalHTTPServer.start()
        defer { server.stop() }
        let loop = try EventLoop(name: "verifier")
        let http = try HTTPClient(loop: loop)
        let old = TokenForge(key: try RSAKey.generate(), kid: "old")
        let new = TokenForge(key: try RSAKey.generate(), kid: "new")
        let jwks = server.url("/stored/jwks")
        try await store(["keys": [try old.jwk()]], at: jwks, http: http)
        let clock = Locked(Date())
        let verifier = CognitoTokenVerifier(
            issuer: "https://issuer.test/pool", jwksURL: jwks, clientIds: ["app"], http: http, refetchInterval: 60, now: { clock.value })
        _ = try await verifier.verify(try old.token(TokenForge.claims()), as: .id)
        #expect(await verifier.fetchCount == 1)

        // Rotation: the pool publishes the new key; a token signed with it arrives 61 s later.
        try await store(["keys": [try old.jwk(), try new.jwk()]], at: jwks, http: http)
        clock.withLock { $0 = $0.addingTimeInterval(61) }
        _ = try await verifier.verify(try new.token(TokenForge.claims()), as: .id)
        #expect(await verifier.fetchCount == 2)

        // A flood of made-up key ids within the interval costs no fetch.
        for index in 0..<20 {
            await #expect(throws: CognitoTokenError.unknownKey("bogus-\(index)")) {
                _ = try await verifier.verify(try old.token(TokenForge.claims(), kid: "bogus-\(index)"), as: .id)
            }
        }
        #expect(await verifier.fetchCount == 2)
        #expect(try await fetchCount(server, http) == 2)
        // After the interval one more fetch is allowed.
        clock.withLock { $0 = $0.addingTimeInterval(61) }
        await #expect(throws: CognitoTokenError.unknownKey("bogus")) {
            _ = try await verifier.verify(try old.token(TokenForge.claims(), kid: "bogus"), as: .id)
        }
        #expect(await verifier.fetchCount == 3)
        await http.shutdown()
        try loop.shutdown()
    }

    private func store(_ document: JSONValue, at url: URL, http: HTTPClient) async throws {
        let body = Array(try JSONEncoder().encode(document))
        let response = try await http.send(HTTPRequest(method: "PUT", url: url, body: .bytes(body)))
        #expect(response.status == 204)
    }

    private func fetchCount(_ server: LocalHTTPServer, _ http: HTTPClient) async throws -> Int {
        let response = try await http.send(HTTPRequest(url: server.url("/stored/jwks.count")))
        return try JSONDecoder().decode(JSONValue.self, from: Data(response.body))["count"]?.intValue ?? -1
    }
}
