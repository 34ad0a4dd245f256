import Amplify
import AmplifyAuthCore
import AmplifyCrypto
import AmplifySQLite
import AmplifyTestKit
import Foundation
import LocalAuthPlugin
import LocalAuthTestSupport
import Testing

/// What a server context promises its users on the local pool, against requests that mix one
/// user's tokens with another's or replay a signed-out session.
@Suite("Server context security on the local pool")
struct ServerContextSecurityTests {
    /// A request of ben whose refresh-token cookie carries ann's refresh token.
    private static func mixedCookies(ben: StoredSession, ann: StoredSession, clientId: String) -> [String] {
        let mixed = StoredSession(
            username: ben.username, userId: ben.userId, idToken: ben.idToken, accessToken: ben.accessToken, refreshToken: ann.refreshToken,
            accessTokenExpiresAt: ben.accessTokenExpiresAt, refreshTokenExpiresAt: nil)
        let pairs = AmplifyJSCookies.setCookies(clientId: clientId, session: mixed).map { $0.split(separator: ";")[0] }
        return [pairs.joined(separator: "; ")]
    }

    @Test("a refresh inside a context never changes its user: ben's access token with ann's refresh token is refused, and ann's session goes on")
    func refreshKeepsTheUser() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        let ben = try #require(await ServerContextTests.contextUser(plugin, fixture, "ben").session.current)
        let ann = try #require(await ServerContextTests.contextUser(plugin, fixture, "ann").session.current)
        let clientId = try plugin.contextTenant().clientId

        let context = try await plugin.serverContext(cookieHeaders: Self.mixedCookies(ben: ben, ann: ann, clientId: clientId))
        #expect(context.user?.username == "ben")
        let refusal = await authError { _ = try await context.session.refresh() }
        guard case .notAuthorized(let reason, _, _)? = refusal else {
            Issue.record("\(String(describing: refusal))")
            return
        }
        #expect(reason.contains("another user"))
        #expect(context.user?.username == "ben")
        #expect(try await context.run { try await plugin.getCurrentUser().username } == "ben")
        // Nothing of ann's goes back in the response.
        #expect(await context.responseCookies().allSatisfy { !$0.contains("ann") })

        // Ann's refresh token was not spent: her own request refreshes with it.
        let annContext = try await plugin.serverContext(authorization: "Bearer \(ann.accessToken)", refreshToken: ann.refreshToken)
        let renewed = try await annContext.session.refresh()
        #expect(renewed.username == "ann")
        try await fixture.close(plugin)
    }

    @Test("an expired access token of ben with ann's refresh token is refused, and ann's refresh token is not spent")
    func expiredPathDoesNotSpendAnotherUsersToken() async throws {
        let fixture = try LocalPoolFixture(["accessTokenLifetimeSeconds": 1])
        let plugin = try fixture.plugin()
        let ben = try #require(await ServerContextTests.contextUser(plugin, fixture, "ben").session.current)
        let ann = try #require(await ServerContextTests.contextUser(plugin, fixture, "ann").session.current)
        try await Task.sleep(for: .milliseconds(2100))
        let refusal = await authError {
            _ = try await plugin.serverContext(authorization: "Bearer \(ben.accessToken)", refreshToken: ann.refreshToken)
        }
        guard case .notAuthorized(let reason, _, _)? = refusal else {
            Issue.record("\(String(describing: refusal))")
            return
        }
        #expect(reason.contains("another user"))
        let annContext = try await plugin.serverContext(authorization: "Bearer \(ann.accessToken)", refreshToken: ann.refreshToken)
        #expect(annContext.user?.username == "ann")
        try await fixture.close(plugin)
    }

    @Test("after a sign-out through a context, replaying its cookies or its bearer token is refused at once, not at the token's expiry")
    func signOutEndsTheTokens() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        let context = try await ServerContextTests.contextUser(plugin, fixture, "ben")
        let tokens = try #require(await context.session.current)
        let cookies = await context.responseCookies().map { String($0.split(separator: ";")[0]) }.joined(separator: "; ")
        let replayedBefore = try await plugin.serverContext(cookieHeaders: [cookies])
        #expect(replayedBefore.user?.username == "ben")

        _ = await context.run { await plugin.signOut(options: nil) }
        #expect(await context.responseCookies().contains { $0.contains("Max-Age=0") || $0.lowercased().contains("expires=thu, 01 jan 1970") })

        for attempt in [
            { _ = try await plugin.serverContext(cookieHeaders: [cookies]) },
            { _ = try await plugin.serverContext(authorization: "Bearer \(tokens.accessToken)", idToken: tokens.idToken) },
        ] {
            let refusal = await authError(attempt)
            guard case .notAuthorized(let reason, _, _)? = refusal else {
                Issue.record("\(String(describing: refusal))")
                continue
            }
            #expect(reason.contains("signed out"))
        }
        // Another session of the same user is not touched.
        let other = try plugin.emptyServerContext()
        _ = try await other.run { try await plugin.signIn(username: "ben", password: "Passw0rd!", options: nil) }
        let otherTokens = try #require(await other.session.current)
        #expect(try await plugin.serverContext(authorization: "Bearer \(otherTokens.accessToken)").user?.username == "ben")
        try await fixture.close(plugin)
    }

    @Test("a refreshed session's tokens are refused after its sign-out too (the session id survives rotation)")
    func signOutAfterRefresh() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        let context = try await ServerContextTests.contextUser(plugin, fixture, "ben")
        let first = try #require(await context.session.current)
        let renewed = try await context.session.refresh()
        #expect(renewed.accessToken != first.accessToken)
        _ = await context.run { await plugin.signOut(options: nil) }
        for token in [first.accessToken, renewed.accessToken] {
            #expect(await authError { _ = try await plugin.serverContext(authorization: "Bearer \(token)") } != nil)
        }
        try await fixture.close(plugin)
    }

    /// n − s for P-256 (big-endian, 32 bytes): the high-S twin of a signature's `s`.
    private static func negated(_ s: ArraySlice<UInt8>) -> [UInt8] {
        let order: [UInt8] = [
            0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
            0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
        ]
        let value = Array(s)
        var result = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for index in stride(from: 31, through: 0, by: -1) {
            var digit = Int(order[index]) - Int(value[index]) - borrow
            borrow = digit < 0 ? 1 : 0
            if digit < 0 { digit += 256 }
            result[index] = UInt8(digit)
        }
        return result
    }

    @Test("the pool's verifier refuses the high-S twin of its own signature, a token naming another key id, and one whose nbf is ahead")
    func verifierChecksSignatureFormKeyIdAndNotBefore() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        let tokens = try #require(await ServerContextTests.contextUser(plugin, fixture, "ben").session.current)
        let parts = tokens.accessToken.split(separator: ".").map(String.init)
        let signature = try #require(Base64URL.decode(parts[2]))
        #expect(signature.count == 64)
        let twin = parts[0] + "." + parts[1] + "." + Base64URL.encode(Array(signature[0..<32]) + Self.negated(signature[32...]))
        #expect(try await plugin.serverContext(authorization: "Bearer \(tokens.accessToken)").user?.username == "ben")
        let highS = await authError { _ = try await plugin.serverContext(authorization: "Bearer \(twin)") }
        guard case .notAuthorized(let reason, _, _)? = highS else {
            Issue.record("\(String(describing: highS))")
            return
        }
        #expect(reason.contains("signature"))

        // Tokens signed with the pool's own key, as someone holding a copy of the key file could.
        let key = try ES256Key(privateKeyPEM: String(contentsOfFile: fixture.folder + "/signing-key.pem", encoding: .utf8))
        let claims = try JSONWebToken(parsing: tokens.accessToken)
        let keyId = try #require(claims.header["kid"]?.stringValue)
        let resigned = try JSONWebToken.sign(claims: claims.claims, key: key, keyId: keyId)
        #expect(try await plugin.serverContext(authorization: "Bearer \(resigned)").user?.username == "ben")
        let otherKid = try JSONWebToken.sign(claims: claims.claims, key: key, keyId: "another-key")
        #expect(await authError { _ = try await plugin.serverContext(authorization: "Bearer \(otherKid)") } != nil)
        guard case .object(var fields) = claims.claims else {
            Issue.record("claims")
            return
        }
        fields["nbf"] = .number((Date().timeIntervalSince1970 + 600).rounded(.down))
        let early = try JSONWebToken.sign(claims: .object(fields), key: key, keyId: keyId)
        let notYet = await authError { _ = try await plugin.serverContext(authorization: "Bearer \(early)") }
        guard case .notAuthorized(let early, _, _)? = notYet else {
            Issue.record("\(String(describing: notYet))")
            return
        }
        #expect(early.contains("not valid yet"))
        try await fixture.close(plugin)
    }

    @Test("outside text in a refusal is escaped: a LastAuthUser cookie with CR, LF and ESC cannot add lines to the 401 body or a log")
    func refusalsEscapeControlCharacters() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        let ben = try #require(await ServerContextTests.contextUser(plugin, fixture, "ben").session.current)
        let clientId = try plugin.contextTenant().clientId
        let cookies = AmplifyJSCookies.setCookies(clientId: clientId, session: ben).map { String($0.split(separator: ";")[0]) }
        let forged = cookies.map {
            $0.hasPrefix("CognitoIdentityServiceProvider.\(clientId).LastAuthUser=")
                ? "CognitoIdentityServiceProvider.\(clientId).LastAuthUser=ben%0D%0Aallow%20admin%1B%5B2J" : $0
        }
        var description = ""
        do {
            _ = try await plugin.serverContext(cookieHeaders: [forged.joined(separator: "; ")])
        } catch let error as any AmplifyError {
            description = error.errorDescription
        }
        #expect(!description.unicodeScalars.contains { [0x0D, 0x0A, 0x1B].contains($0.value) }, "\(description)")
        #expect(description.contains("ben\\r\\nallow admin\\u{1B}[2J"))
        #expect(!description.contains("''s"))
        try await fixture.close(plugin)
    }
}
