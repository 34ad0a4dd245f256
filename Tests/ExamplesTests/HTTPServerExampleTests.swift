import Amplify
import AmplifyTestKit
import Foundation
import HTTPServerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Examples/HummingbirdServer and Examples/VaporServer, each run as its own process on
/// 127.0.0.1 and driven over real sockets: tokens from the local pool and from moto's Cognito,
/// hostile headers sent byte for byte.
@Suite("Examples/HummingbirdServer and Examples/VaporServer")
struct HTTPServerExampleTests {
    static let products = ["HummingbirdServer", "VaporServer"]

    /// A folder with `configuration` as `amplifyconfiguration.json`.
    static func folder(_ configuration: String) throws -> URL {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("http-example-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(configuration.utf8).write(to: folder.appendingPathComponent("amplifyconfiguration.json"))
        return folder
    }

    static func bearer(_ token: String) -> [(String, String)] { [("Authorization", "Bearer \(token)")] }

    static func json(_ response: RawHTTP.Response) -> JSONValue {
        (try? JSONDecoder().decode(JSONValue.self, from: Data(response.body.utf8))) ?? .null
    }

    @Test(
        "on the local pool: /health, /me, the user's own files, /admin for admins only, cookies, and hostile headers answered without a crash",
        arguments: products)
    func localPool(product: String) async throws {
        let pool = try await ScenarioPool()
        guard case .object(let block) = pool.fixture.settings else { return }
        let settings = String(decoding: try JSONEncoder().encode(JSONValue.object(block)), as: UTF8.self)
        let folder = try Self.folder(
            """
            {"auth": {"plugins": {"localAuthPlugin": \(settings)}},
             "storage": {"plugins": {"localStoragePlugin": {"directory": "\(pool.fixture.folder)/storage"}}}}
            """)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServerProcess.start(
            product, ["--config", folder.appendingPathComponent("amplifyconfiguration.json").path, "--port", "0"], in: folder)
        let port = server.port

        let health = try await RawHTTP.request(port: port, "GET", "/health")
        #expect(health.status == 200)
        #expect(Self.json(health) == ["status": "ok"])
        let anonymous = try await RawHTTP.request(port: port, "GET", "/me")
        #expect(anonymous.status == 401)
        #expect(anonymous.values(of: "WWW-Authenticate") == ["Bearer realm=\"amplify\""])

        let ann = try await RawHTTP.request(port: port, "GET", "/me", headers: Self.bearer(pool.ann.accessToken))
        #expect(ann.status == 200, "\(ann.body)")
        #expect(Self.json(ann)["username"] == "ann")
        #expect(Self.json(ann)["authUser"] == "ann")
        #expect(Self.json(ann)["sub"]?.stringValue == pool.ann.userId)
        #expect(Self.json(ann)["groups"] == ["admins"])
        let ben = try await RawHTTP.request(port: port, "GET", "/me", headers: [("Cookie", "a=b; " + ScenarioPool.cookieHeader(pool.ben))])
        #expect(Self.json(ben)["username"] == "ben")

        let upload = try await RawHTTP.request(
            port: port, "PUT", "/me/files/notes.txt", headers: Self.bearer(pool.ann.accessToken), body: Array("hello".utf8))
        #expect(upload.status == 200, "\(upload.body)")
        let annFiles = Self.json(try await RawHTTP.request(port: port, "GET", "/me/files", headers: Self.bearer(pool.ann.accessToken)))
        let listed = annFiles["files"]?.asArray ?? []
        #expect(listed.count == 1)
        #expect(listed.first?["path"]?.stringValue == "private/\(pool.ann.userId)/notes.txt")
        #expect(listed.first?["size"] == 5)
        let benFiles = Self.json(try await RawHTTP.request(port: port, "GET", "/me/files", headers: Self.bearer(pool.ben.accessToken)))
        #expect(benFiles["files"] == [])
        #expect(try await RawHTTP.request(port: port, "GET", "/me/files").status == 401)

        #expect(try await RawHTTP.request(port: port, "GET", "/admin", headers: Self.bearer(pool.ann.accessToken)).status == 200)
        let notAdmin = try await RawHTTP.request(port: port, "GET", "/admin", headers: Self.bearer(pool.ben.accessToken))
        #expect(notAdmin.status == 403)
        #expect(notAdmin.values(of: "WWW-Authenticate").first?.contains("insufficient_scope") == true)

        // Hostile heads: each answered 4xx (never 5xx), and the server goes on serving.
        let base = "CognitoIdentityServiceProvider.local-client"
        var renamed = pool.ben
        renamed.username = "ann"
        let hostile: [(String, [(String, String)])] = [
            ("64 KiB of cookie", [("Cookie", "big=" + String(repeating: "x", count: 65_536))]),
            ("1,000 cookies", [("Cookie", (0..<1_000).map { "c\($0)=v" }.joined(separator: "; "))]),
            ("a duplicated Amplify cookie", [("Cookie", "\(base).LastAuthUser=ann; \(base).LastAuthUser=ben")]),
            ("LastAuthUser naming another user", [("Cookie", ScenarioPool.cookieHeader(renamed))]),
            ("alg none", Self.bearer("eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbm4iLCJ0b2tlbl91c2UiOiJhY2Nlc3MiLCJ1c2VybmFtZSI6ImFubiJ9.")),
            ("an ID token as access token", Self.bearer(pool.ann.idToken)),
            ("a NUL in a header", [("X-Test", "a\u{0}b"), ("Authorization", "Bearer \(pool.ann.accessToken)")]),
            ("a bare CR in the bearer header", [("Authorization", "Bearer \(pool.ann.accessToken)\rSet-Cookie: x=1")]),
        ]
        for (what, headers) in hostile {
            let response = try? await RawHTTP.request(port: port, "GET", "/me", headers: headers)
            // A server may also close the connection on a head it refuses to parse.
            if let response {
                #expect((400..<500).contains(response.status), "\(what): \(response.status) \(response.body)")
                #expect(response.values(of: "Set-Cookie").isEmpty, "\(what)")
            }
            #expect(try await RawHTTP.request(port: port, "GET", "/health").status == 200, "after \(what)")
        }
        #expect(server.isRunning)
        let stopped = await server.stop()
        #expect(!stopped.stderr.contains(pool.ann.accessToken) && !stopped.stderr.contains(pool.ben.refreshToken))
        try await pool.close()
    }

    @Test(
        "on moto's Cognito: its tokens are verified with the pool's JWKS; a JWKS that is down or silent gives 503 within a bound while /health is served",
        arguments: products)
    func cognito(product: String) async throws {
        try await MotoServer.with { moto in
            let seeded = try moto.seed(["userPool": ["name": "servers", "users": [["username": "alice", "password": "Secr3t!pass"]]]])
            let poolId = seeded["userPoolId"]?.stringValue ?? ""
            let clientId = seeded["clientId"]?.stringValue ?? ""
            let access = try #require(
                try moto.tokens(userPoolId: poolId, clientId: clientId, username: "alice", password: "Secr3t!pass")["AccessToken"]?.stringValue)
            func configuration(_ endpoint: String) -> String {
                """
                {"auth": {"plugins": {"awsCognitoAuthPlugin": {
                  "CognitoUserPool": {"Default": {"PoolId": "\(poolId)", "AppClientId": "\(clientId)", "Region": "us-east-1", "Endpoint": "\(endpoint)"}},
                  "Auth": {"Default": {"authenticationFlowType": "USER_SRP_AUTH"}}}}}}
                """
            }
            let folder = try Self.folder(configuration(moto.endpoint.absoluteString))
            defer { try? FileManager.default.removeItem(at: folder) }
            let config = folder.appendingPathComponent("amplifyconfiguration.json").path
            let server = try await ServerProcess.start(product, ["--config", config, "--port", "0"], in: folder)
            let me = try await RawHTTP.request(port: server.port, "GET", "/me", headers: Self.bearer(access))
            #expect(me.status == 200, "\(me.body)")
            #expect(Self.json(me)["username"] == "alice")
            #expect(try await RawHTTP.request(port: server.port, "GET", "/admin", headers: Self.bearer(access)).status == 403)
            var parts = access.split(separator: ".").map(String.init)
            parts[1] = String(parts[1].reversed())
            #expect(try await RawHTTP.request(port: server.port, "GET", "/me", headers: Self.bearer(parts.joined(separator: "."))).status == 401)
            await server.stop()

            // Keys unreachable: a port nobody listens on, then a listener that never answers.
            for (what, keys) in [("down", try Self.closedPort()), ("silent", try Self.silentListener())] {
                defer { if keys.fd >= 0 { close(keys.fd) } }
                let broken = try Self.folder(configuration("http://127.0.0.1:\(keys.port)"))
                defer { try? FileManager.default.removeItem(at: broken) }
                let gate = try await ServerProcess.start(
                    product, ["--config", broken.appendingPathComponent("amplifyconfiguration.json").path, "--port", "0"], in: broken)
                let started = ContinuousClock.now
                async let refused = RawHTTP.request(port: gate.port, "GET", "/me", headers: Self.bearer(access))
                try await Task.sleep(for: .milliseconds(300))
                let healthStarted = ContinuousClock.now
                #expect(try await RawHTTP.request(port: gate.port, "GET", "/health").status == 200)
                // The key fetch waits up to 10 s for the silent listener; /health must not wait for it
                // (5 s leaves room for a loaded machine and still tells the two apart).
                #expect(ContinuousClock.now - healthStarted < .seconds(5), "\(what): /health waited for the keys")
                let answer = try await refused
                #expect(answer.status == 503, "\(what): \(answer.status) \(answer.body)")
                #expect(answer.values(of: "Retry-After") == ["5"])
                // The 10 s key fetch, then the 503: an answer, not a hang.
                #expect(ContinuousClock.now - started < .seconds(40), "\(what)")
                await gate.stop()
            }
        }
    }

    @Test(
        "a bad command line exits 2 with what was wrong and the usage line; a missing configuration file exits 1 with the reason", arguments: products
    )
    func usage(product: String) async throws {
        for arguments in [["--port", "70000"], ["--port"], ["--config"], ["--verbose"]] {
            let run = try await ProductRunner.run(product, arguments)
            #expect(run.exitCode == 2, "\(arguments)")
            #expect(run.stderr.contains("usage: [--config PATH"), "\(arguments): \(run.stderr)")
        }
        let missing = try await ProductRunner.run(product, ["--config", "/nonexistent/amplifyconfiguration.json", "--port", "0"])
        // Exit status 1 with the reason: not the trap of an error thrown out of `main` (which
        // once also hung a ThreadSanitizer run in the crash backtracer).
        #expect(missing.exitCode == 1, "\(missing.stderr)")
        #expect(missing.stderr.hasPrefix("error: Configuration file not found: /nonexistent/amplifyconfiguration.json"), "\(missing.stderr)")
        #expect(!missing.stderr.contains("Fatal error"))
    }

    /// A port that was free a moment ago (nobody listens).
    static func closedPort() throws -> (port: Int, fd: Int32) {
        let (port, fd) = try listener()
        close(fd)
        return (port, -1)
    }

    /// A socket that listens and never accepts: connections complete, nothing is ever answered.
    static func silentListener() throws -> (port: Int, fd: Int32) {
        try listener()
    }

    private static func listener() throws -> (port: Int, fd: Int32) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard fd >= 0, bound else { throw RawHTTP.Failure(description: "no listener: errno \(errno)") }
        return (Int(UInt16(bigEndian: address.sin_port)), fd)
    }
}
