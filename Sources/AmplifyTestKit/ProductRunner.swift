import Foundation

/// What a finished child process printed and how it ended.
public struct ProductRun: Sendable {
    /// The exit status.
    public let exitCode: Int32
    /// Standard output.
    public let stdout: String
    /// Standard error.
    public let stderr: String
}

/// Runs this package's built executables (`amplify`, the examples) from tests.
public enum ProductRunner {
    /// The executable `name` built beside the running test bundle.
    public static func url(of name: String) -> URL {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path), folder.path != "/" {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent(name)
    }

    /// Runs `name` with `arguments` in `directory`, with `environment` (the test's own by
    /// default) and `input` on standard input (which is then closed), and waits for it on a
    /// thread of its own, so the wait holds none of the test pool's threads (on two cores the
    /// pool has two: two tools waited for on it stalled every other test of the run).
    /// - Throws: what `Process.run` throws when the executable cannot start.
    public static func run(
        _ name: String, _ arguments: [String] = [], in directory: URL? = nil,
        environment: [String: String]? = nil, input: String? = nil
    ) async throws -> ProductRun {
        try await offThePool { try runBlocking(name, arguments, in: directory, environment: environment, input: input) }
    }

    private static func runBlocking(
        _ name: String, _ arguments: [String], in directory: URL?,
        environment: [String: String]?, input: String?
    ) throws -> ProductRun {
        let process = Process()
        process.executableURL = url(of: name)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe()
        let err = Pipe()
        let stdin = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = stdin
        try process.runSerialized()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ProductRun(
            exitCode: process.terminationStatus,
            stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }
}

extension Process {
    /// Launches the process with no other launch of the test process under way: Foundation's
    /// `Process.run()` on Linux crashed (in `memcpy`, inside `run()`) when many tests launched
    /// their servers and tools at the same moment.
    /// - Throws: what `Process.run()` throws.
    public func runSerialized() throws {
        // An NSLock, not a Locked<Void>: ThreadSanitizer reported the empty value's accesses
        // from Foundation's launch threads as a race.
        ProcessLaunches.lock.lock()
        defer { ProcessLaunches.lock.unlock() }
        try run()
    }
}

/// The lock every test-process launch takes.
enum ProcessLaunches {
    static let lock = NSLock()
}
