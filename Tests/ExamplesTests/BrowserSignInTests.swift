import Amplify
import AmplifyTestKit
import Foundation
import Testing

/// A real browser (Debian's chromium, headless, driven by Selenium: `Browser/browser_sign_in.py`)
/// signs up, in and out on each example server: on the embedded local pool's own pages, and
/// through the hosted-UI stand-in. Screenshots of every page are kept in
/// `.build/test-artifacts/browser/<product>-<mode>/`.
@Suite("A real browser signs in on the examples")
struct BrowserSignInTests {
    static let products = ["HummingbirdServer", "VaporServer"]

    /// Runs the browser script against `base`; its JSON line, after checking it succeeded.
    static func browse(_ base: String, mode: String, username: String, artefacts: String) async throws -> JSONValue {
        let folder = TestTools.packageRoot.appendingPathComponent(".build/test-artifacts/browser/\(artefacts)")
        try? FileManager.default.removeItem(at: folder)
        let process = Process()
        process.executableURL = try TestTools.python()
        process.arguments = [
            TestTools.packageRoot.appendingPathComponent("Tests/ExamplesTests/Browser/browser_sign_in.py").path, "--base", base, "--mode", mode,
            "--username", username, "--screenshots", folder.path,
        ]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.runSerialized()
        let output = try await offThePool { () -> (String, String) in
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (text, errors)
        }
        let line = output.0.split(separator: "\n").last.map(String.init) ?? ""
        let result = (try? JSONDecoder().decode(JSONValue.self, from: Data(line.utf8))) ?? .null
        #expect(process.terminationStatus == 0, "\(output.0) \(output.1.suffix(2000))")
        #expect(result["ok"] == true, "\(line)")
        let shots = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        #expect(shots.filter { $0.hasSuffix(".png") }.count >= 5, "\(shots)")
        return result
    }

    /// A free port: the server's origin must be known before it starts.
    static func freePort() throws -> Int { try RedisServer.freePort() }

    @Test("on the embedded local pool: sign up, the outbox code, sign in, /me survives a reload, HttpOnly cookies, sign out", arguments: products)
    func localPages(product: String) async throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("browser-local-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServerProcess.start(product, ["--port", String(try Self.freePort())], in: folder)
        let result = try await Self.browse(server.url, mode: "local", username: "ann", artefacts: "\(product)-local")
        print("browser sign-in on \(product), local pages: \(result["seconds"]?.doubleValue ?? -1) s")
        let stopped = await server.stop()
        #expect(!stopped.stderr.contains("eyJ"), "a token reached the server's log")
    }

    @Test(
        "through the hosted UI stand-in: sign in on its page, /me survives a reload, HttpOnly cookies, sign out through its /logout",
        arguments: products)
    func hostedUI(product: String) async throws {
        let port = try Self.freePort()
        let origin = "http://127.0.0.1:\(port)"
        try await HostedUIServer.with(
            HostedUIServer.Options(callbackURLs: [origin + "/auth/sign-in-callback"], logoutURLs: [origin + "/auth/sign-out-callback"])
        ) { hostedUI in
            let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("browser-hosted-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let cognito = hostedUI.cognitoConfiguration(callbackURL: origin + "/auth/sign-in-callback", logoutURL: origin + "/auth/sign-out-callback")
            let configuration: JSONValue = ["auth": ["plugins": ["awsCognitoAuthPlugin": cognito]]]
            let file = folder.appendingPathComponent("amplifyconfiguration.json")
            try JSONEncoder().encode(configuration).write(to: file)
            let server = try await ServerProcess.start(product, ["--config", file.path, "--port", String(port)], in: folder)
            let result = try await Self.browse(server.url, mode: "hosted", username: "alice", artefacts: "\(product)-hosted")
            print("browser sign-in on \(product), hosted UI: \(result["seconds"]?.doubleValue ?? -1) s")
            let state = try await hostedUI.state()
            #expect((state["counts"]?["codesExchanged"]?.doubleValue ?? 0) == 1)
            #expect((state["counts"]?["revocations"]?.doubleValue ?? 0) >= 1)
            let stopped = await server.stop()
            #expect(!stopped.stderr.contains("eyJ"), "a token reached the server's log")
        }
    }
}
