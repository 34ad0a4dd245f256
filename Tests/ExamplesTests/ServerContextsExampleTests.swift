import Amplify
import AmplifyTestKit
import Foundation
import Testing

/// A browser's cookie jar for one site, kept the way Amplify JS keeps its tokens: js-cookie reads
/// `Set-Cookie` values (percent-decoding them) and writes `Cookie` headers (names through
/// `encodeURIComponent` with `# $ & + ^ \` |` restored, values with `# $ & + / : < = > ? @ [ ] ^ \` { | }` restored).
struct AmplifyJSCookieJar {
    var cookies: [(name: String, value: String)] = [("theme", "dark")]

    static func encodeURIComponent(_ text: String, keeping kept: String) -> String {
        text.addingPercentEncoding(
            withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()" + kept))
            ?? text
    }

    mutating func take(_ setCookie: String) {
        let pair = setCookie.prefix { $0 != ";" }
        guard let equals = pair.firstIndex(of: "=") else { return }
        let name = String(pair[..<equals]).removingPercentEncoding ?? ""
        let value = String(pair[pair.index(after: equals)...]).removingPercentEncoding ?? ""
        cookies.removeAll { $0.name == name }
        if !setCookie.contains("Max-Age=0") { cookies.append((name, value)) }
    }

    func value(_ name: String) -> String? { cookies.first { $0.name == name }?.value }

    var header: String {
        cookies.map { "\(Self.encodeURIComponent($0.name, keeping: "#$&+^`|"))=\(Self.encodeURIComponent($0.value, keeping: "#$&+/:<=>?@[]^`{|}"))" }
            .joined(separator: "; ")
    }
}

@Suite("Examples/ServerContexts")
struct ServerContextsExampleTests {
    let pool = NSTemporaryDirectory() + "server-contexts-test-\(UUID().uuidString)"

    /// Runs the example with `requests` (one per line) on the test's pool; the responses.
    func send(_ requests: [JSONValue]) async throws -> [JSONValue] {
        let lines = try requests.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        let run = try await ProductRunner.run("ServerContexts", [pool], input: lines.joined(separator: "\n") + "\n")
        #expect(run.exitCode == 0, "\(run.stderr)")
        return try run.stdout.split(separator: "\n").map { try JSONDecoder().decode(JSONValue.self, from: Data($0.utf8)) }
    }

    static func setCookies(_ response: JSONValue) -> [String] {
        (response["headers"]?.asArray ?? []).compactMap { pair in
            pair.asArray?.first?.stringValue == "Set-Cookie" ? pair.asArray?.last?.stringValue : nil
        }
    }

    @Test(
        "each request runs as the user of its Amplify JS cookies or bearer token; refreshed tokens come back as Set-Cookie; bad cookies are refused before the handler"
    )
    func requests() async throws {
        defer { try? FileManager.default.removeItem(atPath: pool) }
        var jar = AmplifyJSCookieJar()
        let signIn = try await send([
            [
                "method": "POST", "path": "/sign-in", "headers": [["Cookie", .string(jar.header)]],
                "body": ["username": "ann@example.com", "password": "Context-Passw0rd"],
            ]
        ])
        #expect(signIn.first?["status"] == 200)
        for cookie in Self.setCookies(signIn[0]) { jar.take(cookie) }
        let prefix = "CognitoIdentityServiceProvider.local-client"
        #expect(jar.value("\(prefix).LastAuthUser") == "ann@example.com")
        let firstAccess = try #require(jar.value("\(prefix).ann@example.com.accessToken"))
        #expect(jar.header.contains("\(prefix).ann%40example.com.accessToken="))

        let me = try await send([["method": "GET", "path": "/me", "headers": [["Cookie", .string(jar.header)]]]])
        #expect(me.first?["body"]?["username"] == "ann@example.com")
        #expect(me.first?["body"]?["email"] == "ann@example.com")
        #expect(Self.setCookies(me[0]).isEmpty)

        let refreshed = try await send([["method": "POST", "path": "/refresh", "headers": [["Cookie", .string(jar.header)]]]])
        for cookie in Self.setCookies(refreshed[0]) { jar.take(cookie) }
        #expect(jar.value("\(prefix).ann@example.com.accessToken") != firstAccess)

        // Ben through a bearer token, ann through the refreshed cookies, a tampered token, a
        // duplicated cookie, and a sign-out: one process, five requests, each as its own user.
        let ben = try await send([["method": "POST", "path": "/sign-in", "body": ["username": "ben", "password": "Context-Passw0rd"]]])
        let benAccess = try #require(
            Self.setCookies(ben[0]).first { $0.hasPrefix("\(prefix).ben.accessToken=") }?.dropFirst("\(prefix).ben.accessToken=".count).prefix {
                $0 != ";"
            })
        var tampered = jar
        tampered.cookies = tampered.cookies.map { $0.name.hasSuffix(".accessToken") ? ($0.name, String($0.value.dropLast(2)) + "xx") : $0 }
        let responses = try await send([
            ["method": "GET", "path": "/me", "headers": [["Authorization", .string("Bearer \(benAccess)")]]],
            ["method": "GET", "path": "/me", "headers": [["Cookie", .string(jar.header)]]],
            ["method": "GET", "path": "/me", "headers": [["Cookie", .string(tampered.header)]]],
            ["method": "GET", "path": "/me", "headers": [["Cookie", .string(jar.header)], ["Cookie", .string("\(prefix).LastAuthUser=ben")]]],
            ["method": "POST", "path": "/sign-out", "headers": [["Cookie", .string(jar.header)]]],
        ])
        #expect(responses.count == 5)
        #expect(responses[0]["body"]?["username"] == "ben")
        #expect(responses[1]["body"]?["username"] == "ann@example.com")
        #expect(responses[2]["status"] == 401)
        #expect(responses[2]["body"]?["error"]?.stringValue?.contains("access token is refused") == true)
        #expect(responses[3]["status"] == 401)
        #expect(responses[3]["body"]?["error"]?.stringValue?.contains("twice") == true)
        let cleared = Self.setCookies(responses[4])
        #expect(!cleared.isEmpty && cleared.allSatisfy { $0.contains("Max-Age=0") })
    }

    /// (Before, print() block-buffered the pipe: the answer came only when standard input ended.)
    @Test("each answer is written as soon as it is ready: a client that waits for it before sending the next request gets it")
    func answersAreNotBuffered() async throws {
        defer { try? FileManager.default.removeItem(atPath: pool) }
        let process = Process()
        process.executableURL = ProductRunner.url(of: "ServerContexts")
        process.arguments = [pool]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let request = Data(#"{"method":"GET","path":"/me","headers":[]}"#.utf8 + [0x0A])
        try input.fileHandleForWriting.write(contentsOf: request)
        // Read one line with standard input still open, within a bound.
        let line = try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask {
                var bytes: [UInt8] = []
                while let chunk = try output.fileHandleForReading.read(upToCount: 1), let byte = chunk.first {
                    if byte == 0x0A { return String(decoding: bytes, as: UTF8.self) }
                    bytes.append(byte)
                }
                return nil
            }
            let pid = process.processIdentifier
            group.addTask {
                // A buffered answer never comes: end the process so the read above sees the end.
                try await Task.sleep(for: .seconds(60))
                kill(pid, SIGKILL)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
        try input.fileHandleForWriting.close()
        let answer = try #require(line, "no answer while standard input stayed open")
        let json = try JSONDecoder().decode(JSONValue.self, from: Data(answer.utf8))
        #expect(json["status"] != nil)
        process.waitUntilExit()
    }
}
