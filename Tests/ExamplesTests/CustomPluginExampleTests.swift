import AmplifyTestKit
import Foundation
import Testing

@Suite("Examples/CustomPlugin")
struct CustomPluginExampleTests {
    @Test("the example plugin is made from its factory, configured from its block, and prints each event")
    func printsEvents() async throws {
        let run = try await ProductRunner.run("CustomPlugin")
        let (status, stdout, stderr) = (run.exitCode, run.stdout, run.stderr)
        #expect(status == 0)
        #expect(
            stdout == """
                {"app":"orders-service","event":"orderPlaced","express":true,"items":3,"region":"eu-west-1","total":59.5,"user":"user-42"}
                {"app":"orders-service","event":"appClosed","region":"eu-west-1","user":"user-42"}

                """)
        #expect(
            stderr.components(separatedBy: "\n").filter { $0.hasPrefix("hub: ") } == [
                "hub: Amplify.configured ",
                "hub: Analytics.identifyUser user-42",
                "hub: Analytics.record orderPlaced",
                "hub: Analytics.record appClosed",
                "hub: Analytics.flushEvents 0",
            ])
    }

    @Test("a block missing the plugin's required key fails with the full JSON path")
    func missingKey() async throws {
        let file = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("custom-\(UUID().uuidString).json")
        try Data(#"{"analytics": {"plugins": {"printingAnalyticsPlugin": {}}}}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try await ProductRunner.run("CustomPlugin", [file.path])
        let (status, stderr) = (run.exitCode, run.stderr)
        #expect(status == 1)
        #expect(
            stderr.contains("error: `analytics.plugins.printingAnalyticsPlugin.appName` in \(file.path) is missing; expected a non-empty string."))
    }
}
