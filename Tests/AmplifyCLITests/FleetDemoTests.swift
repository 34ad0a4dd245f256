import AmplifyConcurrency
import AmplifyCrypto
import AmplifyTestKit
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `amplify demo --instances`, and the fleet's process faults: real instances (the demo's member
/// processes) paused with SIGSTOP past their leases, and clocks 2 s apart.
@Suite("amplify demo --instances: a fleet of server processes")
struct FleetDemoTests {
    /// A member process of the demo driven over stdin/stdout.
    final class Member: Sendable {
        let name: String
        let pid: Int32
        private let input: FileHandle
        private let received = Locked<[String]>([])
        private let process: Locked<Process>

        init(name: String, config: String, redisPort: Int, key: String, clockOffset: Double = 0) throws {
            self.name = name
            let process = Process()
            process.executableURL = ProductRunner.url(of: "amplify")
            process.arguments = [
                "demo", "--fleet-member", config, "--redis-port", String(redisPort), "--member-name", name, "--lease-seconds", "1", "--clock-offset",
                String(clockOffset),
            ]
            var environment = ProcessInfo.processInfo.environment
            environment["AMPLIFY_FLEET_KEY"] = key
            process.environment = environment
            let stdin = Pipe()
            let stdout = Pipe()
            process.standardInput = stdin
            process.standardOutput = stdout
            try process.run()
            pid = process.processIdentifier
            input = stdin.fileHandleForWriting
            self.process = Locked(process)
            let received = self.received
            let reader = stdout.fileHandleForReading
            Thread {
                var pending: [UInt8] = []
                while case let chunk = reader.availableData, !chunk.isEmpty {
                    pending += chunk
                    while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                        let line = String(decoding: pending[..<end], as: UTF8.self)
                        pending.removeSubrange(...end)
                        received.withLock { $0.append(line) }
                    }
                }
            }.start()
        }

        var lines: [String] { received.value }

        func send(_ line: String) {
            try? input.write(contentsOf: Data((line + "\n").utf8))
        }

        /// The first line from `after` on that `matches`, within `seconds`.
        func line(after: Int = 0, within seconds: Double = 30, _ matches: (String) -> Bool) async throws -> String {
            let end = Date().addingTimeInterval(seconds)
            while Date() < end {
                if let line = received.value.dropFirst(after).first(where: matches) { return line }
                try await Task.sleep(for: .milliseconds(20))
            }
            let found = received.value.dropFirst(after).first(where: matches)
            return try #require(found, "\(name) wrote no such line; last: \(received.value.suffix(3))")
        }

        /// The users of `event NAME USER local` lines from `after` on.
        func local(_ event: String, after: Int = 0) -> [String] {
            lines.dropFirst(after).compactMap { line in
                let words = line.split(separator: " ")
                return words.count == 4 && words[1] == event && words[3] == "local" ? String(words[2]) : nil
            }
        }

        func signal(_ number: Int32) { kill(pid, number) }

        func stop() {
            kill(pid, SIGKILL)
            process.withLock { $0.waitUntilExit() }
        }
    }

    /// A demo folder with the pool's configuration (`lifetime` s access tokens).
    static func folder(lifetime: Int) throws -> URL {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("fleet-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let json = """
            {"auth": {"plugins": {"localAuthPlugin": {"directory": "auth", "accessTokenLifetimeSeconds": \(lifetime),
                                                      "signUpRequiresConfirmation": false, "passwordHashCost": 1024}}}}
            """
        try Data(json.utf8).write(to: folder.appendingPathComponent("amplifyconfiguration.json"))
        return folder
    }

    @Test(
        "the demo: three processes hold every session, none refused; one killed mid-run, the survivors refresh every session; a sign-out relayed as remote; each sign-in once"
    )
    func demoFleet() async throws {
        let run = try await Tool.run(["demo", "--instances", "3", "--users", "6"])
        #expect(run.exitCode == 0, "\(run.stderr)")
        #expect(run.stdout.contains("→ sessions held: instance-1 6, instance-2 6, instance-3 6"))
        #expect(run.stdout.contains("; refused: 0"))
        #expect(run.stdout.contains("→ 6 of 6 refreshed after the kill"))
        #expect(run.stdout.contains("sessions expired: 0"))
        #expect(run.stdout.contains("relayed to the others as remote within"))
        for name in ["alice", "bob", "carol", "dave", "erin", "frank"] { #expect(run.stdout.contains("\(name) 1 + 2 relayed")) }
        #expect(run.stdout.hasSuffix("Done; the demo's folder was removed.\n"))
        #expect((try await Tool.run(["demo", "--instances", "9"])).exitCode != 0)
    }

    @Test(
        "an instance paused with SIGSTOP past its leases and its tokens' life: the other refreshes every session meanwhile; resumed, it takes the new tokens; nobody signed out, nothing refused"
    )
    func pausedInstance() async throws {
        let redis = try await RedisServer.launch()
        defer { redis.stop() }
        let folder = try Self.folder(lifetime: 3)
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = Data(try Digest.randomBytes(32)).base64EncodedString()
        let config = folder.appendingPathComponent("amplifyconfiguration.json").path
        let paused = try Member(name: "paused", config: config, redisPort: redis.port, key: key)
        let live = try Member(name: "live", config: config, redisPort: redis.port, key: key)
        defer {
            paused.stop()
            live.stop()
        }
        for member in [paused, live] { _ = try await member.line { $0.hasPrefix("ready ") } }
        let users = ["alice", "bob", "carol", "dave"]
        for user in users {
            paused.send("signup \(user) Passw0rd!x")
            _ = try await paused.line { $0 == "signedup \(user)" }
        }
        for (index, user) in users.enumerated() {
            let member = index % 2 == 0 ? paused : live
            member.send("signin \(user) Passw0rd!x")
            _ = try await member.line { $0 == "signedin \(user)" }
        }
        try await Task.sleep(for: .seconds(1.5))
        let mark = live.lines.count
        paused.signal(SIGSTOP)
        try await Task.sleep(for: .seconds(4))
        // Every session, the paused instance's too, refreshed by the live one while it was paused.
        #expect(Set(live.local("Auth.tokenRefreshed", after: mark)) == Set(users))
        let resumedMark = paused.lines.count
        paused.signal(SIGCONT)
        try await Task.sleep(for: .seconds(3))
        paused.send("held")
        #expect(try await paused.line(after: resumedMark) { $0.hasPrefix("held ") } == "held 4")
        for member in [paused, live] {
            #expect(member.local("Auth.tokenRefreshFailed").isEmpty, "\(member.name): \(member.lines.filter { $0.contains("Failed") })")
            #expect(member.local("Auth.sessionExpired").isEmpty)
        }
        // Refreshes go on from both after the pause.
        #expect(Set(paused.local("Auth.tokenRefreshed", after: resumedMark) + live.local("Auth.tokenRefreshed", after: resumedMark)) == Set(users))
    }

    @Test("two instances whose clocks are 2 s apart: every session refreshed, none twice (rotated tokens never refused), nobody signed out")
    func clockSkew() async throws {
        let redis = try await RedisServer.launch()
        defer { redis.stop() }
        let folder = try Self.folder(lifetime: 6)
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = Data(try Digest.randomBytes(32)).base64EncodedString()
        let config = folder.appendingPathComponent("amplifyconfiguration.json").path
        let ahead = try Member(name: "ahead", config: config, redisPort: redis.port, key: key, clockOffset: 2)
        let behind = try Member(name: "behind", config: config, redisPort: redis.port, key: key)
        defer {
            ahead.stop()
            behind.stop()
        }
        for member in [ahead, behind] { _ = try await member.line { $0.hasPrefix("ready ") } }
        let users = ["alice", "bob", "carol", "dave"]
        for (index, user) in users.enumerated() {
            let member = index % 2 == 0 ? ahead : behind
            member.send("signup \(user) Passw0rd!x")
            _ = try await member.line { $0 == "signedup \(user)" }
            member.send("signin \(user) Passw0rd!x")
            _ = try await member.line { $0 == "signedin \(user)" }
        }
        try await Task.sleep(for: .seconds(9))
        var refreshes: [String: Int] = [:]
        for member in [ahead, behind] { for user in member.local("Auth.tokenRefreshed") { refreshes[user, default: 0] += 1 } }
        #expect(users.allSatisfy { refreshes[$0, default: 0] >= 2 }, "\(refreshes)")
        for member in [ahead, behind] {
            #expect(member.local("Auth.tokenRefreshFailed").isEmpty)
            #expect(member.local("Auth.sessionExpired").isEmpty)
            let mark = member.lines.count
            member.send("held")
            #expect(try await member.line(after: mark) { $0.hasPrefix("held ") } == "held 4")
        }
    }
}
