import Amplify
import AmplifyAuthCore
import AmplifyEventLoop
import Foundation
import LocalAuthPlugin

/// `SessionBenchmark --hot-paths`: the two paths issue 29's checks sit on, timed the same way
/// on any version of the package (run it on the commit before and after a change):
///   - a server context from a request's Amplify JS cookies on the local pool (signature, claims,
///     the user and, since issue 29, the session's revocation, in one query);
///   - a sign-in and sign-out on the local pool with a trivial password hash (so what is timed is
///     everything but scrypt: the username's look-up, since issue 29 by its RFC 8265 key), for an
///     ASCII name and a name with accents.
/// Medians of 15 chunks.
enum HotPaths {
    static func run() async throws {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm/" : NSTemporaryDirectory()
        let folder = base + "hot-paths-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let loop = try EventLoop(name: "hot-paths")
        let hub = DefaultHubPlugin(loop: loop)
        let plugin = LocalAuthPlugin(hub: hub, eventLoop: loop)
        try plugin.configure(
            using: JSONValue.object([
                "directory": .string(folder), "signUpRequiresConfirmation": false, "passwordHashCost": 2,
            ]))
        let password = "Bench-Passw0rd"
        for name in ["ann", "Jos\u{E9}-Mar\u{ED}a"] { _ = try await plugin.signUp(username: name, password: password, options: nil) }

        let context = try plugin.emptyServerContext()
        _ = try await context.run { try await plugin.signIn(username: "ann", password: password, options: nil) }
        let cookies = await context.responseCookies().map { String($0.prefix { $0 != ";" }) }.joined(separator: "; ")

        func medianNanoseconds(chunks: Int = 15, per: Int, _ body: () async throws -> Void) async throws -> Double {
            var samples: [Double] = []
            for _ in 0..<chunks {
                let start = DispatchTime.now().uptimeNanoseconds
                for _ in 0..<per { try await body() }
                samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(per))
            }
            return samples.sorted()[samples.count / 2]
        }

        for _ in 0..<200 { _ = try await plugin.serverContext(cookieHeaders: [cookies]) }
        let fromCookies = try await medianNanoseconds(per: 400) { _ = try await plugin.serverContext(cookieHeaders: [cookies]) }
        var signIns: [(String, Double)] = []
        for name in ["ann", "jos\u{E9}-mar\u{ED}a"] {
            let signIn = try await medianNanoseconds(per: 40) {
                _ = try await plugin.signIn(username: name, password: password, options: nil)
                _ = await plugin.signOut(options: nil)
            }
            signIns.append((name, signIn))
        }
        print("hot paths (median of 15 chunks):")
        print(String(format: "  server context from cookies (local pool): %.1f µs", fromCookies / 1000))
        for (name, nanoseconds) in signIns {
            print(String(format: "  sign-in + sign-out as %@ (scrypt N=2): %.1f µs", name, nanoseconds / 1000))
        }
        await plugin.reset()
        await hub.reset()
        try loop.shutdown()
    }
}
