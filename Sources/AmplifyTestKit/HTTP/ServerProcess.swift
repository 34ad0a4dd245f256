import AmplifyConcurrency
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP server product of the package (an example) running as a child process on 127.0.0.1:
/// started with its arguments, ready once its first line says `listening on http://127.0.0.1:PORT`,
/// stopped by its PID (SIGTERM, then SIGKILL).
public final class ServerProcess: @unchecked Sendable {
    // Immutable after `start`; `process` is only signalled and polled.
    private let process: Process
    /// The port it listens on.
    public let port: Int
    /// What it wrote to standard error (read when it stops).
    private let errors: Pipe

    private init(process: Process, port: Int, errors: Pipe) {
        self.process = process
        self.port = port
        self.errors = errors
    }

    /// Starts `product` with `arguments` in `directory` and waits (up to `timeout`) for its
    /// `listening on` line.
    /// - Throws: ``RawHTTP/Failure`` saying what the process printed when it exits, or stays
    ///   silent for `timeout` (it is then stopped).
    public static func start(_ product: String, _ arguments: [String], in directory: URL, timeout: Duration = .seconds(60)) async throws
        -> ServerProcess
    {
        let process = Process()
        process.executableURL = ProductRunner.url(of: product)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.runSerialized()
        // A server that never announces is stopped after `timeout`: its pipe closes and the read ends.
        let ready = Locked(false)
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            if !ready.value { ChildProcessStop.stop(process) }
        }
        defer { watchdog.cancel() }
        let reader = out.fileHandleForReading
        let line = try await offThePool { () -> String in
            var bytes: [UInt8] = []
            while true {
                let chunk = reader.readData(ofLength: 1)
                guard let byte = chunk.first, byte != UInt8(ascii: "\n") else { break }
                bytes.append(byte)
            }
            ready.withLock { $0 = true }
            return String(decoding: bytes, as: UTF8.self)
        }
        let prefix = "listening on http://127.0.0.1:"
        guard line.hasPrefix(prefix), let port = Int(line.dropFirst(prefix.count)) else {
            ChildProcessStop.stop(process)
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw RawHTTP.Failure(description: "\(product) did not announce its port: first line '\(line)', stderr: \(stderr)")
        }
        return ServerProcess(process: process, port: port, errors: err)
    }

    /// Whether it still runs.
    public var isRunning: Bool { process.isRunning }

    /// The server's base URL.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// Stops it (SIGTERM, SIGKILL after 5 s) and returns its exit status and standard error.
    @discardableResult
    public func stop() async -> (status: Int32, stderr: String) {
        let process = process
        let errors = errors
        return
            (try? await offThePool {
                ChildProcessStop.stop(process)
                let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                return (process.isRunning ? -1 : process.terminationStatus, text)
            }) ?? (-1, "")
    }
}
