import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A WebSocket peer for tests (`ws_test_server.py`, Python's standard library only: its own
/// handshake and framing) on a free port on 127.0.0.1, over ws or, with a self-signed
/// certificate, wss. The first path segment picks what it does: `/echo`, `/fragmented`,
/// `/midframe` (half a frame, then the TCP connection closes), `/masked`, `/huge`, `/badutf8`,
/// `/close`, `/ping`, `/refuse` (403), `/silent` (never answers). ``stop()`` ends it by its PID.
public final class WebSocketTestServer: @unchecked Sendable {
    // @unchecked Sendable: set up in init, then only read; `stop` is called once by the owner.
    private let process = Process()
    /// The server's port on 127.0.0.1.
    public let port: Int
    /// The certificate it serves with TLS (trust it as the only authority); `nil` without TLS.
    public let certificateFile: String?

    /// Starts the server (with TLS when `tls`) and waits until it prints its port, on a thread of
    /// its own (not one of the test pool's).
    /// - Throws: what `Process.run` throws, or `CocoaError` when the server or openssl fails.
    public static func start(tls: Bool = false) async throws -> WebSocketTestServer {
        try await offThePool { try WebSocketTestServer(tls: tls) }
    }

    private init(tls: Bool) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("ws_test_server.py")
        var arguments = ["python3", script.path]
        var certificate: String?
        if tls {
            let folder = NSTemporaryDirectory() + "ws-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let openssl = Process()
            openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            openssl.arguments = [
                "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", folder + "/key.pem", "-out", folder + "/cert.pem",
                "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            ]
            openssl.standardOutput = FileHandle.nullDevice
            openssl.standardError = FileHandle.nullDevice
            try openssl.runSerialized()
            ChildProcessStop.waitForExit(openssl)
            guard FileManager.default.fileExists(atPath: folder + "/cert.pem") else { throw CocoaError(.fileWriteUnknown) }
            arguments += ["--cert", folder + "/cert.pem", "--key", folder + "/key.pem"]
            certificate = folder + "/cert.pem"
        }
        certificateFile = certificate
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.runSerialized()
        var line = [UInt8]()
        while let byte = try output.fileHandleForReading.read(upToCount: 1)?.first, byte != UInt8(ascii: "\n") { line.append(byte) }
        guard let port = Int(String(decoding: line, as: UTF8.self).replacingOccurrences(of: "PORT ", with: "")) else {
            ChildProcessStop.stop(process, signal: SIGKILL)
            throw CocoaError(.fileReadCorruptFile)
        }
        self.port = port
    }

    /// `ws(s)://127.0.0.1:<port><path>`.
    public func url(_ path: String) -> URL {
        URL(string: "\(certificateFile == nil ? "ws" : "wss")://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }

    /// `http://127.0.0.1:<port><path>`: an API endpoint whose real-time URL (`…/realtime`) lands here.
    public func httpURL(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }

    /// Ends the server by its PID and waits for it.
    public func stop() {
        ChildProcessStop.stop(process)
    }
}
