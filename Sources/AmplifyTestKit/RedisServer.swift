import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A `redis-server` of the test's own on a free port on 127.0.0.1, without persistence, stopped
/// by its PID. ``restart()`` stops it and starts a fresh one on the same port (its data is gone,
/// as after a crash of a server without persistence).
///
/// Calls block the calling thread until the server answers or is gone.
public final class RedisServer: @unchecked Sendable {
    // @unchecked Sendable: `process` is replaced and read only under `lock`.
    private let lock = NSLock()
    private var process: Process?

    /// The server's port on 127.0.0.1.
    public let port: Int

    /// Starts a server (installing redis-server with `scripts/install-test-tools.sh` if missing)
    /// and waits until it answers `PING`.
    /// - Throws: ``RedisServerError`` when it cannot be installed or does not answer in 10 s.
    public init() throws {
        try Self.ensureInstalled()
        port = try Self.freePort()
        try startProcess()
    }

    deinit { stop() }

    /// Kills the server by its PID (SIGKILL, no save) and waits for it to exit.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard let process else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    /// Kills the server and starts an empty one on the same port.
    /// - Throws: ``RedisServerError`` when the new one does not answer.
    public func restart() throws {
        stop()
        try startProcess()
    }

    /// Starts the server again after ``stop()``.
    /// - Throws: ``RedisServerError`` when it does not answer.
    public func start() throws {
        try startProcess()
    }

    private func startProcess() throws {
        lock.lock()
        defer { lock.unlock() }
        guard process == nil else { return }
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "no"]
        server.standardInput = FileHandle.nullDevice
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        process = server
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if Self.answersPing(port: port) { return }
            usleep(20_000)
        }
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
        process = nil
        throw RedisServerError(description: "redis-server on port \(port) did not answer PING within 10 s")
    }

    /// Whether something on `port` answers `PING` with `+PONG`.
    static func answersPing(port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return false }
        let ping = Array("PING\r\n".utf8)
        guard write(socket, ping, ping.count) == ping.count else { return false }
        var answer = [UInt8](repeating: 0, count: 16)
        let count = read(socket, &answer, answer.count)
        return count >= 5 && String(decoding: answer[0..<5], as: UTF8.self) == "+PONG"
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
        try check.run()
        check.waitUntilExit()
        if check.terminationStatus == 0 { return }
        let install = Process()
        install.executableURL = MotoServer.packageRoot.appendingPathComponent("scripts/install-test-tools.sh")
        install.standardInput = FileHandle.nullDevice
        install.standardOutput = FileHandle.nullDevice
        install.standardError = FileHandle.nullDevice
        try install.run()
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
