import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A small HTTP server for HTTP-client tests and benchmarks (`http_test_server.py`, Python's
/// standard library only) on a free port on 127.0.0.1: `/bytes?n=` streams bytes, `/echo`
/// describes the request it got (method, headers, body length and SHA-256), `/slow?ms=`
/// answers late, `/json` and `/rest/…` stand in for AWS JSON 1.1 and REST-XML services,
/// `/stored/NAME` serves what was PUT there (and `/stored/NAME.count` how often it was fetched),
/// `/replay` answers AWS JSON calls from the recorded exchanges PUT at `/stored/fixtures`.
/// Faults: `/stall?key=&n=&after=` sends `after` bytes of an `n`-byte body and then nothing,
/// `/cut?key=&n=&after=` closes the connection after `after` bytes the first time and then
/// serves whole bodies (both honour `Range` and `If-Match`; `/seen?key=` lists the `Range` and
/// `If-Match` each request carried), `/s3stall/…` never answers past a GET's first 1000 bytes,
/// and `/blackhole` names a port whose connections never complete. With
/// ``start(proxyingTo:)`` it forwards every request to another loopback server instead, and can
/// cut the next download (`/__control/cut?after=N`, `/__control/log`).
/// ``stop()`` ends it by its PID.
public final class LocalHTTPServer: @unchecked Sendable {
    // @unchecked Sendable: set up in init, then only read; `stop` is called once by the owner.
    private let process = Process()
    /// The server's port on 127.0.0.1.
    public let port: Int

    /// Starts the server and waits until it prints its port (on a thread of its own, not one of
    /// the test pool's).
    /// - Throws: what `Process.run` throws, or `CocoaError` when the server does not start.
    public static func start() async throws -> LocalHTTPServer {
        try await offThePool { try LocalHTTPServer(arguments: []) }
    }

    /// Starts a forwarding proxy to the server on `port` of 127.0.0.1 (a `moto_server`): requests
    /// and answers pass unchanged, except that `POST /__control/cut?after=N` makes the next GET
    /// answered 200 or 206 end after N bytes of its body (the connection closed), and
    /// `GET /__control/log` lists the requests forwarded as JSON (method, path, range, ifMatch,
    /// status).
    /// - Parameter port: the server to forward to.
    /// - Throws: what `Process.run` throws, or `CocoaError` when the proxy does not start.
    public static func start(proxyingTo port: Int) async throws -> LocalHTTPServer {
        try await offThePool { try LocalHTTPServer(arguments: ["--proxy-to", String(port)]) }
    }

    private init(arguments: [String]) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("http_test_server.py")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.runSerialized()
        var line = [UInt8]()
        while let byte = try output.fileHandleForReading.read(upToCount: 1)?.first, byte != UInt8(ascii: "\n") {
            line.append(byte)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).replacingOccurrences(of: "PORT ", with: "")) else {
            ChildProcessStop.stop(process, signal: SIGKILL)
            throw CocoaError(.fileReadCorruptFile)
        }
        self.port = port
    }

    /// `http://127.0.0.1:<port><path>`.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }

    /// Ends the server by its PID and waits for it to be gone.
    public func stop() {
        ChildProcessStop.stop(process)
    }
}
