import AmplifyTestKit
import Foundation
import Testing

/// `amplify analytics …` on the local plugin, each command its own process.
@Suite("amplify analytics")
struct AnalyticsCommandTests {
    private func folder() async throws -> URL {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("cli-analytics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(#"{"analytics": {"plugins": {"localAnalyticsPlugin": {"directory": "data", "autoFlushEventsInterval": 0}}}}"#.utf8)
            .write(to: folder.appendingPathComponent("amplifyconfiguration.json"))
        return folder
    }

    private func lines(_ file: URL) -> [JSONValueLine] {
        guard let data = FileManager.default.contents(atPath: file.path) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap {
            try? JSONDecoder().decode(JSONValueLine.self, from: Data($0.utf8))
        }
    }

    struct JSONValueLine: Decodable {
        let id: Int
        let name: String
        let metrics: [String: Double]
        let attributes: [String: String]
    }

    @Test("record with properties, status, flush to the JSON-lines file, status again")
    func recordFlushStatus() async throws {
        let folder = try await folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recorded = try await Tool.run(["analytics", "record", "orderPlaced", "total=59.5", "express=true", "region=eu-west-1"], in: folder)
        #expect(recorded.stdout == "Recorded 'orderPlaced'; 1 waiting to be sent.\n")
        #expect(try await Tool.run(["analytics", "status"], in: folder).stdout.hasPrefix("Queued: 1\nSet aside: 0\nLast flush: never\n"))
        let flushed = try await Tool.run(["analytics", "flush"], in: folder)
        #expect(flushed.exitCode == 0)
        #expect(flushed.stdout.hasPrefix("Sent 1 event(s) to "))
        let written = lines(folder.appendingPathComponent("data/events.jsonl"))
        #expect(written.map(\.name) == ["orderPlaced"])
        #expect(written.first?.metrics == ["total": 59.5])
        #expect(written.first?.attributes == ["express": "true", "region": "eu-west-1"])
        #expect(try await Tool.run(["analytics", "status"], in: folder).stdout.hasPrefix("Queued: 0\nSet aside: 0\nLast flush: 20"))
    }

    @Test("a malformed property or count is a usage error (exit 2) that says what was wrong")
    func usageErrors() async throws {
        let folder = try await folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let property = try await Tool.run(["analytics", "record", "x", "=oops"], in: folder)
        #expect(property.exitCode == 2)
        #expect(property.stderr.hasPrefix("Properties are KEY=VALUE; got '=oops'."))
        let count = try await Tool.run(["analytics", "record", "x", "--count", "zero"], in: folder)
        #expect(count.exitCode == 2)
        #expect(count.stderr.hasPrefix("--count needs a positive number; got 'zero'."))
    }

    @Test(
        "a recorder killed with SIGKILL mid-run loses no event it acknowledged: the next process sends them all, once, in order",
        .timeLimit(.minutes(10)))
    func sigkillLosesNothingAcknowledged() async throws {
        let folder = try await folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recorder = Process()
        recorder.executableURL = ProductRunner.url(of: "amplify")
        recorder.arguments = ["analytics", "record", "load", "--count", "1000000", "--progress"]
        recorder.currentDirectoryURL = folder
        let output = Pipe()
        recorder.standardOutput = output
        recorder.standardError = FileHandle.nullDevice
        recorder.standardInput = FileHandle.nullDevice
        try recorder.runSerialized()
        let reading = output.fileHandleForReading
        var text = try await offThePool {
            var text = ""
            while text.components(separatedBy: "\n").count < 2_000 {
                let chunk = reading.availableData
                guard !chunk.isEmpty else { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            return text
        }
        kill(recorder.processIdentifier, SIGKILL)
        await recorder.exited()
        text += String(decoding: try await offThePool { reading.readDataToEndOfFile() }, as: UTF8.self)
        #expect(recorder.terminationReason == .uncaughtSignal)
        let acknowledged = text.split(separator: "\n").compactMap { $0.hasPrefix("stored ") ? Int($0.dropFirst(7)) : nil }
        let lastAcknowledged = try #require(acknowledged.last)
        #expect(acknowledged == Array(1...lastAcknowledged))

        let flushed = try await Tool.run(["analytics", "flush"], in: folder)
        #expect(flushed.exitCode == 0)
        let sent = lines(folder.appendingPathComponent("data/events.jsonl")).compactMap { $0.metrics["seq"].map(Int.init) }
        #expect(sent.count >= lastAcknowledged)
        #expect(Array(sent.prefix(lastAcknowledged)) == Array(1...lastAcknowledged))
        #expect(sent == Array(1...sent.count))
    }
}
