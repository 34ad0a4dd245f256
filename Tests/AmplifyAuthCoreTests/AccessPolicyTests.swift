import AmplifyAuthCore
import Testing

@Suite("Access policies and RFC 6750 answers")
struct AccessPolicyTests {
    static func user(groups: [String], scopes: [String]) -> AuthenticatedUser {
        AuthenticatedUser(
            entry: .init(username: "ann", sub: "sub-ann", groups: groups, scopes: scopes, expiresAt: 2_000_000_000),
            tenant: AuthTenant(pool: "p", clientId: "c", issuer: "i"), accessToken: "")
    }

    @Test("groups and scopes combine with && and ||; nobody signed in is 401, a user without them 403 insufficient_scope")
    func policies() throws {
        let admin = Self.user(groups: ["admins"], scopes: ["api/read"])
        let reader = Self.user(groups: ["readers"], scopes: ["api/read"])
        #expect(AccessPolicy.group("admins").check(admin) == nil)
        let refused = try #require(AccessPolicy.group("admins").check(reader))
        #expect(refused.status == 403)
        #expect(refused.code == .insufficientScope)
        #expect(refused.message == "This needs the group 'admins'.")
        #expect(AccessPolicy.group("Admins").check(admin) != nil)  // case-sensitive, as Cognito
        #expect(AccessPolicy.anyGroup(["readers", "admins"]).check(reader) == nil)
        #expect(AccessPolicy.anyGroup([]).check(admin) != nil)
        #expect((AccessPolicy.group("admins") && .scope("api/read")).check(admin) == nil)
        #expect((AccessPolicy.group("admins") && .scope("api/write")).check(admin)?.scope == "api/write")
        #expect((AccessPolicy.group("admins") || .scope("api/read")).check(reader) == nil)
        #expect(AccessPolicy.custom("a user named ann", { $0.username == "ann" }).check(reader) == nil)
        let anonymous = try #require(AccessPolicy.signedIn.check(nil))
        #expect(anonymous.status == 401)
        #expect(anonymous.code == nil)
        #expect(anonymous.wwwAuthenticate == "Bearer realm=\"amplify\"")
    }

    @Test("challenges carry RFC 6750's WWW-Authenticate; quotes, backslashes and control characters never reach the header")
    func challenges() {
        let bad = AuthChallenge(status: 401, code: .invalidToken, message: "The \"token\" is\r\nSet-Cookie: x=1 \\ bad é")
        #expect(
            bad.wwwAuthenticate == "Bearer realm=\"amplify\", error=\"invalid_token\", error_description=\"The 'token' is??Set-Cookie: x=1 / bad ?\"")
        #expect(bad.jsonBody.hasPrefix("{\"error\":\"invalid_token\",\"message\":\"The 'token'"))
        let scope = AuthChallenge(status: 403, code: .insufficientScope, message: "m", scope: "api/write")
        #expect(scope.wwwAuthenticate?.hasSuffix(", scope=\"api/write\"") == true)
        let unavailable = AuthChallenge(status: 503, code: nil, message: "later", retryAfter: 5)
        #expect(unavailable.wwwAuthenticate == nil)
        #expect(unavailable.headers.contains { $0.name == "Retry-After" && $0.value == "5" })
        #expect(AuthChallenge(status: 401, code: .invalidToken, message: String(repeating: "x", count: 5_000)).message.count == 300)
    }
}
