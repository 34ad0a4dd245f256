import AmplifyTestKit
import Foundation

/// Runs the built `amplify` tool, without the AMPLIFY_* variables of the test's environment.
enum Tool {
    static let samples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples/Configurations")

    static func run(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:], input: String? = nil) throws -> ProductRun {
        var merged = ProcessInfo.processInfo.environment
        merged.removeValue(forKey: "AMPLIFY_CONFIG")
        merged.removeValue(forKey: "AMPLIFY_LOG_LEVEL")
        for (key, value) in environment { merged[key] = value }
        return try ProductRunner.run("amplify", arguments, in: directory, environment: merged, input: input)
    }

    /// ``run(_:in:environment:input:)`` for tests that run many commands: it waits without
    /// holding one of the test pool's threads (output to files, the end polled), so the suite's
    /// other tests keep running meanwhile. Standard input is empty.
    static func running(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]) async throws -> Finished {
        var merged = ProcessInfo.processInfo.environment
        merged.removeValue(forKey: "AMPLIFY_CONFIG")
        merged.removeValue(forKey: "AMPLIFY_LOG_LEVEL")
        for (key, value) in environment { merged[key] = value }
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("cli-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outPath = folder.appendingPathComponent("stdout")
        let errPath = folder.appendingPathComponent("stderr")
        try Data().write(to: outPath)
        try Data().write(to: errPath)
        let out = try FileHandle(forWritingTo: outPath)
        let err = try FileHandle(forWritingTo: errPath)
        let process = Process()
        process.executableURL = ProductRunner.url(of: "amplify")
        process.arguments = arguments
        process.environment = merged
        if let directory { process.currentDirectoryURL = directory }
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.runSerialized()
        while process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
        try out.close()
        try err.close()
        return Finished(
            exitCode: process.terminationStatus, stdout: String(decoding: try Data(contentsOf: outPath), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errPath), as: UTF8.self))
    }

    /// How a ``running(_:in:environment:)`` run ended and what it printed.
    struct Finished {
        let exitCode: Int32
        let stdout: String
        let stderr: String
    }
}
