import AmplifyAuthCore
import AmplifyConcurrency
import AmplifyCrypto
import AmplifyPlugins
import Foundation
import LocalAuthPlugin

#if canImport(Glibc)
    import Glibc
#endif

/// `amplify demo --instances N --users M`: a fleet of N server processes sharing held sessions
/// through a redis-server the demo starts on 127.0.0.1, on the embedded pool's shared files. One
/// instance is killed mid-run; the others go on refreshing every session, and each user's events
/// are dispatched once and relayed as remote.
enum DemoFleet {
    static func run(instances count: Int, users userCount: Int, keep: Bool) async throws {
        let folder = try DemoCommand.makeFolder()
        defer { if !keep { try? FileManager.default.removeItem(at: folder) } }
        try DemoCommand.configure(
            in: folder, title: "Amplify demo (a fleet of \(count) server processes, \(userCount) users)",
            """
            {"auth": {"plugins": {"localAuthPlugin": {"directory": "auth", "accessTokenLifetimeSeconds": 2,
                                                      "signUpRequiresConfirmation": false, "passwordHashCost": 16384}}}}
            """)
        let users = Array(DemoUsers.names.prefix(userCount))
        let password = DemoCommand.password
        let redis = try DemoRedis.start(folder: folder)
        defer { redis.stop() }
        var members: [DemoFleetProcess] = []
        defer { for member in members { member.stop() } }

        try await DemoCommand.step("Start redis-server on 127.0.0.1:\(redis.port)") { "pid \(redis.pid), no persistence" }
        try await DemoCommand.step("Start \(count) instances: separate processes, the pool's files and that Redis shared") {
            let key = Data(try Digest.randomBytes(32)).base64EncodedString()
            for index in 1...count {
                members.append(
                    try DemoFleetProcess(
                        arguments: [
                            "demo", "--fleet-member", folder.appendingPathComponent("amplifyconfiguration.json").path, "--redis-port",
                            String(redis.port), "--member-name", "instance-\(index)", "--lease-seconds", "1",
                        ], key: key, name: "instance-\(index)"))
            }
            for member in members { _ = try await member.await(timeout: 30) { $0.hasPrefix("ready ") } }
            return members.map { "\($0.name) (pid \($0.pid))" }.joined(separator: ", ")
        }
        try await DemoCommand.step("Sign up \(users.joined(separator: ", "))") {
            for name in users { _ = try await Amplify.Auth.signUp(username: name, password: password) }
            return "\(users.count) users"
        }
        try await DemoCommand.step("Each signs in on one instance, round robin; every instance holds every session") {
            for (index, name) in users.enumerated() {
                let member = members[index % count]
                member.send("signin \(name) \(password)")
                _ = try await member.await(timeout: 30) { $0 == "signedin \(name)" || $0.hasPrefix("error ") }
            }
            var held: [String] = []
            for member in members {
                let start = member.lines.count
                member.send("held")
                let line = try await member.await(timeout: 10, after: start) { $0.hasPrefix("held ") }
                held.append("\(member.name) \(line.dropFirst(5))")
            }
            return "sessions held: " + held.joined(separator: ", ")
        }
        try await DemoCommand.step("Wait 3 s: each 2 s access token is refreshed by exactly one instance") {
            try await Task.sleep(for: .seconds(3))
            let counts = members.map { "\($0.name) \($0.events("Auth.tokenRefreshed", local: true).count)" }
            let refused = members.reduce(0) { $0 + $1.events("Auth.tokenRefreshFailed", local: true).count }
            return "refreshes: \(counts.joined(separator: ", ")); refused: \(refused)"
        }
        let killed = members[0]
        let survivors = Array(members.dropFirst())
        let killedAt = Date()
        let marks = survivors.map { $0.lines.count }
        try await DemoCommand.step("Kill \(killed.name) (SIGKILL) mid-run, its leases and all") {
            killed.kill()
            return "pid \(killed.pid) killed"
        }
        try await DemoCommand.step("Wait: the survivors refresh every session, those \(killed.name) signed in too") {
            var refreshed: Set<String> = []
            while refreshed.count < users.count, Date().timeIntervalSince(killedAt) < 20 {
                try await Task.sleep(for: .milliseconds(100))
                refreshed = Set(zip(survivors, marks).flatMap { $0.events("Auth.tokenRefreshed", local: true, after: $1) })
            }
            let expired = survivors.reduce(0) { $0 + $1.events("Auth.sessionExpired", local: true).count }
            return
                "\(refreshed.count) of \(users.count) refreshed after the kill, within \(String(format: "%.1f", Date().timeIntervalSince(killedAt))) s; sessions expired: \(expired)"
        }
        let leaving = users[1 % users.count]
        try await DemoCommand.step("\(leaving) signs out on \(survivors[0].name); every other instance drops the session") {
            let start = Date()
            let marks = survivors.map { $0.lines.count }
            survivors[0].send("signout \(leaving)")
            _ = try await survivors[0].await(timeout: 10, after: marks[0]) { $0 == "signedout \(leaving)" || $0.hasPrefix("error ") }
            for (member, mark) in zip(survivors.dropFirst(), marks.dropFirst()) {
                _ = try await member.await(timeout: 10, after: mark) { $0 == "event Auth.signedOut \(leaving) remote" }
            }
            return
                "signedOut dispatched on \(survivors[0].name), relayed to the others as remote within \(Int(Date().timeIntervalSince(start) * 1000)) ms"
        }
        try await DemoCommand.step("Each user's sign-in, across the fleet") {
            var rows: [String] = []
            for name in users {
                let local = members.reduce(0) { $0 + $1.events("Auth.signedIn", local: true).filter { $0 == name }.count }
                let remote = members.reduce(0) { $0 + $1.events("Auth.signedIn", local: false).filter { $0 == name }.count }
                rows.append("\(name) \(local) + \(remote) relayed")
            }
            return "signedIn once each where it happened: " + rows.joined(separator: ", ")
        }
        for member in survivors { member.send("quit") }
        for member in survivors { member.waitForExit(seconds: 10) }
        Output.line(keep ? "Done; the demo's files are in \(folder.path)." : "Done; the demo's folder was removed.")
    }
}

/// A child process of the demo (an instance, or redis-server): its pid, its stdout's lines.
final class DemoFleetProcess {
    let name: String
    private let process: Process
    private let input: FileHandle
    private let received = Locked<[String]>([])

    /// Starts this executable with `arguments`, the fleet's key in its environment.
    /// - Throws: what `Process.run()` throws.
    init(arguments: [String], key: String, name: String) throws {
        self.name = name
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["AMPLIFY_FLEET_KEY"] = key
        process.environment = environment
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        input = stdin.fileHandleForWriting
        try process.run()
        let received = self.received
        let reader = stdout.fileHandleForReading
        Thread {
            var pending: [UInt8] = []
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                pending += chunk
                while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[..<end], as: UTF8.self)
                    pending.removeSubrange(...end)
                    received.withLock { $0.append(line) }
                }
            }
        }.start()
    }

    var pid: Int32 { process.processIdentifier }

    /// Every line it wrote so far.
    var lines: [String] { received.value }

    /// The users of its `event NAME USER local|remote` lines, from line `after` on.
    func events(_ name: String, local: Bool, after: Int = 0) -> [String] {
        let lines = received.value
        let suffix = local ? "local" : "remote"
        return lines.dropFirst(after).compactMap { line -> String? in
            let words = line.split(separator: " ")
            guard words.count == 4, words[0] == "event", words[1] == name, words[3] == suffix else { return nil }
            return String(words[2])
        }
    }

    /// Sends one command line.
    func send(_ line: String) {
        try? input.write(contentsOf: Data((line + "\n").utf8))
    }

    /// The first line from line `after` on that `matches`, waiting at most `timeout` seconds.
    /// - Throws: `UsageError` naming the process when none comes.
    func await(timeout: Double, after: Int = 0, _ matches: (String) -> Bool) async throws -> String {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if let line = received.value.dropFirst(after).first(where: matches) { return line }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        if let line = received.value.dropFirst(after).first(where: matches) { return line }
        throw UsageError("\(name) did not answer in \(Int(timeout)) s; its last lines: \(received.value.suffix(3).joined(separator: " | "))")
    }

    func kill() {
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func waitForExit(seconds: Double) {
        let end = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < end { usleep(20_000) }
        stop()
    }

    /// Kills it if it still runs.
    func stop() {
        guard process.isRunning else { return }
        kill()
    }
}

/// The demo's redis-server: 127.0.0.1, a free port, no persistence, stopped by its pid.
struct DemoRedis {
    let port: Int
    let pid: Int32
    private let process: Process

    /// Starts redis-server and waits until it answers.
    /// - Throws: `UsageError` when redis-server is not installed or does not answer.
    static func start(folder: URL) throws -> DemoRedis {
        let port = try freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", folder.path,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let redis = DemoRedis(port: port, pid: process.processIdentifier, process: process)
        let end = Date().addingTimeInterval(10)
        while Date() < end {
            guard process.isRunning else { break }
            if answers(port) { return redis }
            usleep(20_000)
        }
        redis.stop()
        throw UsageError(
            "redis-server did not start on 127.0.0.1:\(port). `amplify demo --instances` needs redis-server on the PATH (Debian: apt-get install redis-server)."
        )
    }

    func stop() {
        guard process.isRunning else { return }
        Glibc.kill(pid, SIGKILL)
        process.waitUntilExit()
    }

    /// A port nothing listens on now (the kernel's pick for a socket bound to port 0).
    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw UsageError("No socket for a free port.") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw UsageError("No free port on 127.0.0.1.") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something answers PING with PONG on `port`.
    private static func answers(_ port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else { return false }
        let ping = Array("PING\r\n".utf8)
        guard ping.withUnsafeBytes({ write(socket, $0.baseAddress, $0.count) }) == ping.count else { return false }
        var reply = [UInt8](repeating: 0, count: 16)
        let count = reply.withUnsafeMutableBytes { read(socket, $0.baseAddress, $0.count) }
        return count > 0 && String(decoding: reply.prefix(count), as: UTF8.self).hasPrefix("+PONG")
    }
}
