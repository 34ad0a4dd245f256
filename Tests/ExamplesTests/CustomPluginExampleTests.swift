import Foundation
import Testing

@Suite("Examples/CustomPlugin")
struct CustomPluginExampleTests {
    private var binary: URL {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("CustomPlugin").path), folder.path != "/" {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("CustomPlugin")
    }

    private func run(_ arguments: [String]) throws -> (Int32, String, String) {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stdout, stderr)
    }

    @Test("the example plugin is made from its factory, configured from its block, and prints each event")
    func printsEvents() throws {
        let (status, stdout, stderr) = try run([])
        #expect(status == 0)
        #expect(stdout == """
            {"app":"orders-service","event":"orderPlaced","express":true,"items":3,"region":"eu-west-1","total":59.5,"user":"user-42"}
            {"app":"orders-service","event":"appClosed","region":"eu-west-1","user":"user-42"}

            """)
        #expect(stderr.components(separatedBy: "\n").filter { $0.hasPrefix("hub: ") } == [
            "hub: Amplify.configured ",
            "hub: Analytics.identifyUser user-42",
            "hub: Analytics.record orderPlaced",
            "hub: Analytics.record appClosed",
            "hub: Analytics.flushEvents 0",
        ])
    }

    @Test("a block missing the plugin's required key fails with the full JSON path")
    func missingKey() throws {
        let file = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("custom-\(UUID().uuidString).json")
        try Data(#"{"analytics": {"plugins": {"printingAnalyticsPlugin": {}}}}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let (status, _, stderr) = try run([file.path])
        #expect(status == 1)
        #expect(stderr.contains("error: `analytics.plugins.printingAnalyticsPlugin.appName` in \(file.path) is missing; expected a non-empty string."))
    }
}
