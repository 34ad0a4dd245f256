import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP server for HTTP-client tests and benchmarks (`http_test_server.py`, Python's
/// standard library only) on a free port on 127.0.0.1: `/bytes?n=` streams bytes, `/echo`
/// describes the request it got (method, headers, body length and SHA-256), `/slow?ms=`
/// answers late, `/json` and `/rest/…` stand in for AWS JSON 1.1 and REST-XML services,
/// `/stored/NAME` serves what was PUT there (and `/stored/NAME.count` how often it was fetched),
/// and `/replay` answers AWS JSON calls from the recorded exchanges PUT at `/stored/fixtures`.
/// ``stop()`` ends it by its PID.
public final class LocalHTTPServer: @unchecked Sendable {
    // @unchecked Sendable: set up in init, then only read; `stop` is called once by the owner.
    private let process = Process()
    /// The server's port on 127.0.0.1.
    public let port: Int

    /// Starts the server and waits until it prints its port.
    /// - Throws: what `Process.run` throws, or `CocoaError` when the server does not start.
    public init() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("http_test_server.py")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var line = [UInt8]()
        while let byte = try output.fileHandleForReading.read(upToCount: 1)?.first, byte != UInt8(ascii: "\n") {
            line.append(byte)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).replacingOccurrences(of: "PORT ", with: "")) else {
            process.terminate()
            throw CocoaError(.fileReadCorruptFile)
        }
        self.port = port
    }

    /// `http://127.0.0.1:<port><path>`.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }

    /// Ends the server by its PID and waits for it.
    public func stop() {
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }
}
