import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A `redis-server` of the test's own on a free port on 127.0.0.1, stopped by its PID.
///
/// By default it runs without persistence: ``restart(waitForData:)`` stops it and starts a fresh one on the
/// same port (its data is gone, as after a crash of a server without persistence). With
/// `appendOnly` it keeps an append-only file (fsync on every write) in a temporary folder of its
/// own, so a restart replays it and the data survives; while it replays, the server answers
/// `-LOADING`, as a production Redis does after a restart. `DEBUG` is enabled for loopback
/// clients, so a test can fill it (`DEBUG POPULATE`), and ``command(_:)`` talks to it directly.
///
/// Starting and restarting wait on a thread of their own; ``command(_:)`` blocks the calling
/// thread until the server answers or is gone.
public final class RedisServer: @unchecked Sendable {
    // @unchecked Sendable: `process` is replaced and read only under `lock`; the other stored
    // properties are constants.
    private let lock = NSLock()
    private var process: Process?
    private let dataFolder: URL?
    private let extraArguments: [String]

    /// The server's port on 127.0.0.1.
    public let port: Int

    /// Starts a server (installing redis-server with `scripts/install-test-tools.sh` if missing)
    /// and waits until it answers `PING`.
    /// - Parameters:
    ///   - appendOnly: keep an append-only file (fsync always) in a temporary folder, so that the
    ///     data survives ``restart(waitForData:)``; the folder is deleted when the server is released.
    ///   - arguments: more `redis-server` options, given at every start (for example
    ///     `["--key-load-delay", "50"]` to make replaying the data slow).
    /// - Throws: ``RedisServerError`` when it cannot be installed or does not answer in 10 s.
    public static func launch(appendOnly: Bool = false, arguments: [String] = []) async throws -> RedisServer {
        try await offThePool { try RedisServer(appendOnly: appendOnly, arguments: arguments) }
    }

    /// ``launch(appendOnly:arguments:)`` blocking the calling thread, for test code that already
    /// runs on a thread of its own (inside ``offThePool(_:)``).
    /// - Throws: ``RedisServerError`` when it cannot be installed or does not answer in 10 s.
    public static func launchBlocking(appendOnly: Bool = false, arguments: [String] = []) throws -> RedisServer {
        try RedisServer(appendOnly: appendOnly, arguments: arguments)
    }

    private init(appendOnly: Bool, arguments: [String]) throws {
        try Self.ensureInstalled()
        port = try Self.freePort()
        if appendOnly {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("redis-test-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            dataFolder = folder
        } else {
            dataFolder = nil
        }
        extraArguments = arguments
        try startProcess(waitForData: true)
    }

    deinit {
        stop()
        if let dataFolder { try? FileManager.default.removeItem(at: dataFolder) }
    }

    /// Kills the server by its PID (SIGKILL, no save) and waits for it to exit.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard let process else { return }
        ChildProcessStop.stop(process, signal: SIGKILL)
        self.process = nil
    }

    /// Kills the server and starts it again on the same port: empty, or (with `appendOnly`)
    /// replaying its append-only file.
    /// - Parameter waitForData: wait until the server answers `PING` with `PONG`; with `false`,
    ///   return as soon as it answers at all (a `-LOADING` reply while it replays its data counts).
    /// - Throws: ``RedisServerError`` when the new one does not answer.
    public func restart(waitForData: Bool = true) async throws {
        try await offThePool { try self.restartBlocking(waitForData: waitForData) }
    }

    /// ``restart(waitForData:)`` blocking the calling thread, for test code that already runs on
    /// a thread of its own (inside ``offThePool(_:)``).
    /// - Throws: ``RedisServerError`` when the new one does not answer.
    public func restartBlocking(waitForData: Bool = true) throws {
        stop()
        try startProcess(waitForData: waitForData)
    }

    /// Starts the server again after ``stop()``.
    /// - Throws: ``RedisServerError`` when it does not answer.
    public func start() async throws {
        try await offThePool { try self.startProcess(waitForData: true) }
    }

    private func startProcess(waitForData: Bool) throws {
        lock.lock()
        defer { lock.unlock() }
        guard process == nil else { return }
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = [
            "redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--protected-mode", "no", "--enable-debug-command", "local",
        ]
        if let dataFolder {
            arguments += ["--dir", dataFolder.path, "--appendonly", "yes", "--appendfsync", "always"]
        } else {
            arguments += ["--appendonly", "no"]
        }
        server.arguments = arguments + extraArguments
        server.standardInput = FileHandle.nullDevice
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.runSerialized()
        process = server
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let answer = Self.ping(port: port), answer == "+PONG" || (!waitForData && answer.hasPrefix("-LOADING")) { return }
            usleep(20_000)
        }
        ChildProcessStop.stop(server, signal: SIGKILL)
        process = nil
        throw RedisServerError(description: "redis-server on port \(port) did not answer PING within 10 s")
    }

    /// The first line of what something on `port` answers to `PING` (`+PONG`, `-LOADING …`), or
    /// `nil` when nothing answers.
    static func ping(port: Int) -> String? {
        try? exchange(port: port, ["PING"], timeout: 2)
    }

    /// Sends one command on a connection of its own and returns the reply. Blocks until the reply
    /// comes (a command that blocks the server, such as a long `EVAL`, blocks the caller too).
    /// - Parameter arguments: the command and its arguments.
    /// - Returns: a simple, error or integer reply's line as Redis wrote it (`+OK`, `-BUSY …`,
    ///   `:3`), a bulk string's content, `$-1` for a null, and only the first line (`*2`) of an
    ///   array.
    /// - Throws: ``RedisServerError`` when the server cannot be reached or closes first.
    @discardableResult
    public func command(_ arguments: [String]) throws -> String {
        try Self.exchange(port: port, arguments, timeout: nil)
    }

    private static func exchange(port: Int, _ arguments: [String], timeout seconds: Int?) throws -> String {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw RedisServerError(description: "socket() failed") }
        defer { close(socket) }
        if let seconds {
            var limit = timeval(tv_sec: seconds, tv_usec: 0)
            setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw RedisServerError(description: "nothing answers on port \(port)") }
        var request = Array("*\(arguments.count)\r\n".utf8)
        for argument in arguments {
            request += Array("$\(argument.utf8.count)\r\n".utf8) + Array(argument.utf8) + Array("\r\n".utf8)
        }
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { write(socket, $0.baseAddress, $0.count) }
            guard count > 0 else { throw RedisServerError(description: "could not send \(arguments.first ?? "") to port \(port)") }
            sent += count
        }
        var reply: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let lineEnd = reply.firstIndex(of: UInt8(ascii: "\n")) {
                let head = String(decoding: reply[..<lineEnd], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                guard head.hasPrefix("$"), let length = Int(head.dropFirst()), length >= 0 else { return head }
                let start = lineEnd + 1
                if reply.count >= start + length { return String(decoding: reply[start..<(start + length)], as: UTF8.self) }
            }
            let count = read(socket, &chunk, chunk.count)
            guard count > 0 else {
                throw RedisServerError(description: "port \(port) closed the connection before replying to \(arguments.first ?? "")")
            }
            reply += chunk[0..<count]
        }
    }

    /// A port nothing listens on now (the kernel's pick for a socket bound to port 0).
    /// A TCP port on 127.0.0.1 nothing listens on right now (the system picks it; a race with
    /// another process taking it first is possible but rare).
    /// - Throws: ``RedisServerError`` when no socket can be bound.
    public static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw RedisServerError(description: "socket() failed") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        guard bound else { throw RedisServerError(description: "could not bind a loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func ensureInstalled() throws {
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        check.arguments = ["sh", "-c", "command -v redis-server"]
        check.standardInput = FileHandle.nullDevice
        check.standardOutput = FileHandle.nullDevice
        check.standardError = FileHandle.nullDevice
        try check.runSerialized()
        check.waitUntilExit()
        if check.terminationStatus == 0 { return }
        let install = Process()
        install.executableURL = MotoServer.packageRoot.appendingPathComponent("scripts/install-test-tools.sh")
        install.standardInput = FileHandle.nullDevice
        install.standardOutput = FileHandle.nullDevice
        install.standardError = FileHandle.nullDevice
        try install.runSerialized()
        install.waitUntilExit()
        guard install.terminationStatus == 0 else {
            throw RedisServerError(description: "redis-server is not installed and scripts/install-test-tools.sh failed")
        }
    }
}

/// What went wrong starting the test's redis-server.
public struct RedisServerError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
}
