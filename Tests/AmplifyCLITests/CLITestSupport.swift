import AmplifyTestKit
import Foundation

/// Runs the built `amplify` tool, without the AMPLIFY_* variables of the test's environment.
enum Tool {
    static let samples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples/Configurations")

    static func run(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:], input: String? = nil) async throws
        -> ProductRun
    {
        var merged = ProcessInfo.processInfo.environment
        merged.removeValue(forKey: "AMPLIFY_CONFIG")
        merged.removeValue(forKey: "AMPLIFY_LOG_LEVEL")
        for (key, value) in environment { merged[key] = value }
        return try await ProductRunner.run("amplify", arguments, in: directory, environment: merged, input: input)
    }
}
