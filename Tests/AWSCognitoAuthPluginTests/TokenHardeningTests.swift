import AWSCognitoAuthPlugin
import AWSPluginsCore
import Amplify
import AmplifyCrypto
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

/// A verifier on a test server's JWKS, and tokens built from raw JSON bytes (for claims that
/// JSONValue cannot hold: `1e999`, invalid UTF-8).
private struct HardeningFixture {
    let server: LocalHTTPServer
    let loop: EventLoop
    let http: HTTPClient
    let forge: TokenForge
    let verifier: CognitoTokenVerifier

    init(jwks: (TokenForge) throws -> JSONValue = { ["keys": [try $0.jwk()]] }) async throws {
        server = try await LocalHTTPServer.start()
        loop = try EventLoop(name: "verifier-hardening")
        http = try HTTPClient(loop: loop)
        forge = TokenForge(key: try RSAKey.generate(), kid: "k1")
        let url = server.url("/stored/jwks")
        let body = Array(try JSONEncoder().encode(try jwks(forge)))
        _ = try await http.send(HTTPRequest(method: "PUT", url: url, body: .bytes(body)))
        verifier = CognitoTokenVerifier(issuer: "https://issuer.test/pool", jwksURL: url, clientIds: ["app"], http: http)
    }

    /// A token whose header and claims are these exact bytes, signed with the forge's key.
    func rawToken(header: [UInt8], claims: [UInt8]) throws -> String {
        let input = Base64URL.encode(header) + "." + Base64URL.encode(claims)
        return input + "." + Base64URL.encode(try forge.key.sign(Array(input.utf8)))
    }

    func rawToken(header: String = #"{"alg":"RS256","kid":"k1"}"#, claims: String) throws -> String {
        try rawToken(header: Array(header.utf8), claims: Array(claims.utf8))
    }

    /// Valid claims for an ID token, as JSON text, with `extra` members appended raw.
    func claims(exp: String? = nil, extra: String = "") -> String {
        let expiry = exp ?? String(Int(Date().timeIntervalSince1970) + 600)
        return #"{"sub":"user-1","iss":"https://issuer.test/pool","token_use":"id","aud":"app","exp":"# + expiry + extra + "}"
    }

    func refusal(_ token: String) async -> String? {
        do {
            _ = try await verifier.verify(token, as: .id)
            return nil
        } catch {
            return "\(error)"
        }
    }

    func close() async throws {
        await http.shutdown()
        try loop.shutdown()
        server.stop()
    }
}

@Suite("Token verifier: hostile tokens and keys")
struct TokenHardeningTests {
    @Test("a token over 64 KiB is refused before any work: no JWKS fetch, no parsing")
    func oversizedTokenRefusedFirst() async throws {
        let fixture = try await HardeningFixture()
        let padding = String(repeating: "a", count: 70_000)
        let big = try fixture.rawToken(claims: fixture.claims(extra: #","pad":""# + padding + #"""#))
        #expect(big.utf8.count > 64 * 1024)
        let refusal = await fixture.refusal(big)
        #expect(refusal?.contains("65536") == true, "\(refusal ?? "accepted")")
        #expect(await fixture.verifier.fetchCount == 0)
        // A token just under the cap is still verified.
        let fits = try fixture.rawToken(claims: fixture.claims(extra: #","pad":""# + String(repeating: "a", count: 45_000) + #"""#))
        #expect(await fixture.refusal(fits) == nil)
        try await fixture.close()
    }

    /// (16 KiB, the cap before, refused it.)
    @Test("an ID token of a user in 100 groups with 128-character names, as Cognito issues it (about 18 KB), is accepted")
    func largestGroupListAccepted() async throws {
        let fixture = try await HardeningFixture()
        let groups = (0..<100).map { "\"" + String(format: "group-%03d-", $0) + String(repeating: "x", count: 118) + "\"" }.joined(separator: ",")
        let token = try fixture.rawToken(claims: fixture.claims(extra: #","cognito:groups":["# + groups + "]"))
        #expect(token.utf8.count > 17_000)
        #expect(await fixture.refusal(token) == nil)
        try await fixture.close()
    }

    @Test(
        "claims of the wrong type are refused with the claim named",
        arguments: [
            ("scope", #","scope":1"#), ("jti", #","jti":{"id":1}"#), ("origin_jti", #","origin_jti":true"#),
            ("cognito:groups", #","cognito:groups":"admins""#),
            ("cognito:groups", #","cognito:groups":[1]"#), ("cognito:username", #","cognito:username":["alice"]"#),
            ("auth_time", #","auth_time":"now""#),
            ("event_id", #","event_id":7"#),
        ])
    func wronglyTypedClaims(_ claim: String, _ extra: String) async throws {
        let fixture = try await HardeningFixture()
        let token = try fixture.rawToken(claims: fixture.claims(extra: extra))
        let refusal = await fixture.refusal(token)
        #expect(refusal == "the token's '\(claim)' claim is not of its type", "\(refusal ?? "accepted")")
        try await fixture.close()
    }

    @Test("an aud claim that is not a string (or list of strings) is refused, and a list naming the client is accepted")
    func audienceTypes() async throws {
        let fixture = try await HardeningFixture()
        let base = #"{"sub":"user-1","iss":"https://issuer.test/pool","token_use":"id","exp":"# + String(Int(Date().timeIntervalSince1970) + 600)
        #expect(await fixture.refusal(try fixture.rawToken(claims: base + #","aud":5}"#)) == "the token's 'aud' claim is not of its type")
        #expect(await fixture.refusal(try fixture.rawToken(claims: base + #","aud":["app",2]}"#)) == "the token's 'aud' claim is not of its type")
        try await fixture.close()
    }

    @Test("the default clock-skew grace is 0, as aws-jwt-verify's: exp == now has expired; a configured grace accepts it")
    func graceIsZeroByDefault() async throws {
        let fixture = try await HardeningFixture()
        let expiry = Date().timeIntervalSince1970.rounded(.down) + 600
        let token = try fixture.rawToken(claims: fixture.claims(exp: String(Int(expiry))))
        let url = fixture.server.url("/stored/jwks")
        func verifier(grace: TimeInterval?, at now: TimeInterval) -> CognitoTokenVerifier {
            let clock: @Sendable () -> Date = { Date(timeIntervalSince1970: now) }
            if let grace {
                return CognitoTokenVerifier(
                    issuer: "https://issuer.test/pool", jwksURL: url, clientIds: ["app"], http: fixture.http, leeway: grace, now: clock)
            }
            return CognitoTokenVerifier(issuer: "https://issuer.test/pool", jwksURL: url, clientIds: ["app"], http: fixture.http, now: clock)
        }
        _ = try await verifier(grace: nil, at: expiry - 1).verify(token, as: .id)
        await #expect(throws: CognitoTokenError.expired) { _ = try await verifier(grace: nil, at: expiry).verify(token, as: .id) }
        _ = try await verifier(grace: 5, at: expiry + 4).verify(token, as: .id)
        await #expect(throws: CognitoTokenError.expired) { _ = try await verifier(grace: 5, at: expiry + 5).verify(token, as: .id) }
        // A grace that is not a time is taken as 0.
        await #expect(throws: CognitoTokenError.expired) { _ = try await verifier(grace: -.infinity, at: expiry).verify(token, as: .id) }
        try await fixture.close()
    }

    @Test("a JWKS answer over 1 MiB is refused while it downloads, with the limit named")
    func oversizedJWKSRefused() async throws {
        let fixture = try await HardeningFixture { forge in
            ["keys": [try forge.jwk()], "padding": .string(String(repeating: "p", count: 3 << 20))]
        }
        let refusal = await fixture.refusal(try fixture.rawToken(claims: fixture.claims()))
        #expect(refusal?.contains("over 1048576 bytes") == true, "\(refusal ?? "accepted")")
        try await fixture.close()
    }

    @Test("a JWKS key with exponent 1 is refused, so a token 'signed' with no private key does not verify")
    func exponentOneKeyRefused() async throws {
        let fixture = try await HardeningFixture { forge in
            let (n, _) = try forge.key.publicComponents()
            return ["keys": [["kty": "RSA", "alg": "RS256", "use": "sig", "kid": "weak", "n": .string(Base64URL.encode(n)), "e": "AQ"]]]
        }
        // With e = 1, the "signature" is the PKCS#1 v1.5 encoding of the digest itself.
        let header = Array(#"{"alg":"RS256","kid":"weak"}"#.utf8)
        let input = Base64URL.encode(header) + "." + Base64URL.encode(Array(fixture.claims().utf8))
        let modulusLength = try fixture.forge.key.publicComponents().modulus.count
        let digestInfo: [UInt8] =
            [0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20]
            + Digest.sha256(Array(input.utf8))
        let encoded: [UInt8] = [0x00, 0x01] + [UInt8](repeating: 0xFF, count: modulusLength - 3 - digestInfo.count) + [0x00] + digestInfo
        let forged = input + "." + Base64URL.encode(encoded)
        let refusal = await fixture.refusal(forged)
        #expect(refusal != nil, "a token signed without the private key verified")
        try await fixture.close()
    }

    @Test(
        "malformed time claims are refused with the claim named",
        arguments: [
            ("exp", #""later""#, ""), ("exp", "1e999", ""), ("exp", "1e300", ""),
            ("nbf", "", #","nbf":"soon""#), ("iat", "", #","iat":{"when":"now"}"#), ("nbf", "", #","nbf":1e999"#),
        ])
    func malformedTimeClaims(_ claim: String, _ exp: String, _ extra: String) async throws {
        let fixture = try await HardeningFixture()
        let token = try fixture.rawToken(claims: fixture.claims(exp: exp.isEmpty ? nil : exp, extra: extra))
        let refusal = await fixture.refusal(token)
        #expect(refusal?.contains("'\(claim)'") == true, "\(refusal ?? "accepted")")
        try await fixture.close()
    }

    @Test("invalid UTF-8 in the header or the claims is refused as malformed")
    func invalidUTF8() async throws {
        let fixture = try await HardeningFixture()
        // `"name":"caf\xE9"`: Latin-1 é, not UTF-8.
        var claims = Array(fixture.claims().utf8.dropLast())
        claims += Array(#","name":"caf"#.utf8) + [0xE9] + Array(#""}"#.utf8)
        let badClaims = try fixture.rawToken(header: Array(#"{"alg":"RS256","kid":"k1"}"#.utf8), claims: claims)
        #expect(await fixture.refusal(badClaims) == "the token is not a well-formed JWT")
        let header = Array(#"{"alg":"RS256","kid":"k1","x":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        let badHeader = try fixture.rawToken(header: header, claims: Array(fixture.claims().utf8))
        #expect(await fixture.refusal(badHeader) == "the token is not a well-formed JWT")
        try await fixture.close()
    }

    @Test("any crit header is refused (no extension is understood)", arguments: [#"["exp"]"#, #"["b64"]"#, "[]", #""exp""#])
    func critHeaderRefused(_ crit: String) async throws {
        let fixture = try await HardeningFixture()
        let token = try fixture.rawToken(header: #"{"alg":"RS256","kid":"k1","crit":"# + crit + "}", claims: fixture.claims())
        let refusal = await fixture.refusal(token)
        #expect(refusal?.contains("crit") == true, "\(refusal ?? "accepted")")
        try await fixture.close()
    }
}
