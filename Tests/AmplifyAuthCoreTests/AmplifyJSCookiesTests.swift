import AmplifyAuthCore
import Foundation
import Testing

/// Amplify JS's cookies read from hostile headers: a clear error, never a crash.
@Suite("Amplify JS cookies")
struct AmplifyJSCookiesTests {
    let base = "CognitoIdentityServiceProvider.client1"

    @Test("the tokens of LastAuthUser are read, URL-decoded, from one header or several; other applications' cookies are passed over")
    func readsTokens() throws {
        let header = "theme=dark; \(base).LastAuthUser=ann%40example.com; \(base).ann%40example.com.accessToken=a.b.c; junk"
        let tokens = try #require(try AmplifyJSCookies.tokens(in: [header, "\(base).ann%40example.com.refreshToken=r%2Bt"], clientId: "client1"))
        #expect(tokens == AuthRequestTokens(accessToken: "a.b.c", idToken: nil, refreshToken: "r+t", username: "ann@example.com"))
        #expect(try AmplifyJSCookies.tokens(in: ["theme=dark"], clientId: "client1") == nil)
        #expect(try AmplifyJSCookies.tokens(in: [header], clientId: "client2") == nil)
    }

    @Test("malformed, oversized, duplicated and incomplete cookie headers are refused with a clear error")
    func refusesHostileHeaders() {
        func problem(_ headers: [String]) -> AmplifyJSCookies.CookieError? {
            do {
                _ = try AmplifyJSCookies.tokens(in: headers, clientId: "client1")
                return nil
            } catch {
                return error
            }
        }
        guard case .duplicated? = problem(["\(base).LastAuthUser=ann; \(base).LastAuthUser=bob"]) else {
            Issue.record("duplicate")
            return
        }
        #expect(problem(["\(base).LastAuthUser=ann", "\(base).LastAuthUser=ann; \(base).ann.accessToken=x"]) == nil)
        guard case .oversized? = problem([String(repeating: "a=b; ", count: 10_000)]) else {
            Issue.record("oversized")
            return
        }
        guard case .oversized? = problem([(0..<300).map { "c\($0)=v" }.joined(separator: "; ")]) else {
            Issue.record("too many")
            return
        }
        guard case .malformed? = problem(["\(base).LastAuthUser=ann\r\nSet-Cookie: x=y"]) else {
            Issue.record("control")
            return
        }
        guard case .malformed? = problem(["\(base).LastAuthUser"]) else {
            Issue.record("no =")
            return
        }
        guard case .malformed? = problem(["\(base).LastAuthUser=%E0%A4"]) else {
            Issue.record("bad UTF-8")
            return
        }
        guard case .malformed? = problem(["\(base).LastAuthUser=%zz"]) else {
            Issue.record("bad escape")
            return
        }
        guard case .incomplete? = problem(["\(base).LastAuthUser=ann"]) else {
            Issue.record("incomplete")
            return
        }
        #expect(problem(["%zz=1; other"]) == nil)
        #expect((try? AuthRequestTokens(authorization: "Bearer")) == nil)
        #expect((try? AuthRequestTokens(authorization: "bearer  tok")).map(\.accessToken) == "tok")
    }

    @Test("headers are read on their bytes: spaces and tabs around pairs and values, quoted values, non-ASCII values, any case of Bearer")
    func readsHeaderBytes() throws {
        let header = "\t theme=\"dark\" ;\t\(base).LastAuthUser = \"zoë\" ;; \(base).zo%C3%AB.accessToken=\ta.b.c \t; café=crème"
        let tokens = try #require(try AmplifyJSCookies.tokens(in: [header], clientId: "client1"))
        #expect(tokens == AuthRequestTokens(accessToken: "a.b.c", username: "zoë"))
        let cookies = try AmplifyJSCookies.parse([header])
        #expect(cookies["theme"] == "dark")
        #expect(cookies["café"] == "crème")
        #expect(try AmplifyJSCookies.parse(["a=\"\""])["a"] == "")
        #expect(try AmplifyJSCookies.parse(["a=\""])["a"] == "\"")
        for accepted in ["Bearer tok", "BEARER tok", "bEaReR   tok", " \tBearer tok\t "] {
            #expect((try? AuthRequestTokens(authorization: accepted))?.accessToken == "tok", "\(accepted)")
        }
        for refused in ["Bearer", "Bearer ", "Bearerx tok", "Beare tok", "Bearer\ttok", "Bearer to k", "Bearer to\tk", "Basic tok", "Bearér tok", ""]
        {
            #expect((try? AuthRequestTokens(authorization: refused)) == nil, "\(refused)")
        }
        guard case .malformed? = Self.error({ () throws(AmplifyJSCookies.CookieError) in try AmplifyJSCookies.parse(["a=b\u{7F}"]) }) else {
            Issue.record("DEL is a control character")
            return
        }
        guard case .malformed? = Self.error({ () throws(AmplifyJSCookies.CookieError) in try AmplifyJSCookies.parse(["a=b\u{0}c"]) }) else {
            Issue.record("NUL is a control character")
            return
        }
    }

    static func error(_ body: () throws(AmplifyJSCookies.CookieError) -> [String: String]) -> AmplifyJSCookies.CookieError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    @Test("written cookies read back: names and values encoded as js-cookie does, with Amplify JS's attributes")
    func roundTrip() throws {
        let session = StoredSession(
            username: "ann+1@example.com", userId: "s", idToken: "i.d.t", accessToken: "a.c.t", refreshToken: "r/t=",
            accessTokenExpiresAt: Date(), refreshTokenExpiresAt: nil)
        let cookies = AmplifyJSCookies.setCookies(clientId: "client1", session: session)
        #expect(cookies[0] == "CognitoIdentityServiceProvider.client1.LastAuthUser=ann+1@example.com; Path=/; Max-Age=31536000; Secure; SameSite=Lax")
        #expect(cookies[3].hasPrefix("CognitoIdentityServiceProvider.client1.ann+1%40example.com.refreshToken=r/t=;"))
        let header = cookies.map { String($0.prefix { $0 != ";" }) }.joined(separator: "; ")
        let tokens = try #require(try AmplifyJSCookies.tokens(in: [header], clientId: "client1"))
        #expect(tokens == AuthRequestTokens(accessToken: "a.c.t", idToken: "i.d.t", refreshToken: "r/t=", username: "ann+1@example.com"))
    }
}
