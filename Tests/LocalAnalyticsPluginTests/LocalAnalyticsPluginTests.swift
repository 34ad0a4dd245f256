import Amplify
import AmplifyAnalyticsCore
import AmplifyEventLoop
import Foundation
import LocalAnalyticsPlugin
import Testing

@Suite("Local analytics plugin")
struct LocalAnalyticsPluginTests {
    private func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("local-analytics-\(UUID().uuidString)").path
    }

    private func lines(_ path: String) -> [JSONValue] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap {
            try? JSONDecoder().decode(JSONValue.self, from: Data($0.utf8))
        }
    }

    @Test("a flush appends one JSON line per event, in order, with its attributes, metrics and user")
    func writesJSONLines() async throws {
        let loop = try EventLoop(name: "local-analytics")
        let directory = folder()
        let hub = DefaultHubPlugin(loop: loop)
        let plugin = LocalAnalyticsPlugin(loop: loop, hub: hub)
        try plugin.configure(using: ["directory": .string(directory), "autoFlushEventsInterval": 0] as JSONValue)
        let engine = try #require(plugin.engine)
        plugin.identifyUser(userId: "u-1", userProfile: nil)
        try await engine.recordDurably(BasicAnalyticsEvent(name: "orderPlaced", properties: ["total": 59.5, "express": true]))
        try await engine.recordDurably(BasicAnalyticsEvent(name: "appClosed"))
        #expect(await engine.flush().sent == 2)
        let written = lines(try #require(plugin.eventsFile))
        #expect(written.map { $0["name"] } == ["orderPlaced", "appClosed"])
        #expect(written[0]["metrics"] == ["total": 59.5])
        #expect(written[0]["attributes"] == ["express": "true"])
        #expect(written[0]["userId"] == "u-1")
        await plugin.reset()
        await hub.reset()
        try loop.shutdown()
    }

    @Test("the file is rotated by size: old files are numbered and the oldest beyond maxFiles is deleted")
    func rotation() async throws {
        let loop = try EventLoop(name: "local-analytics")
        let directory = folder()
        let hub = DefaultHubPlugin(loop: loop)
        let plugin = LocalAnalyticsPlugin(loop: loop, hub: hub)
        try plugin.configure(
            using: [
                "directory": .string(directory), "autoFlushEventsInterval": 0, "maxFileBytes": 400, "maxFiles": 2, "batchSize": 2,
            ] as JSONValue)
        let engine = try #require(plugin.engine)
        for index in 1...20 { try await engine.recordDurably(BasicAnalyticsEvent(name: "event-\(index)")) }
        #expect(await engine.flush().sent == 20)
        let file = try #require(plugin.eventsFile)
        let files = [file, file + ".1", file + ".2"]
        for path in files {
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            #expect(size > 0 && size <= 400, "\(path) has \(size) bytes")
        }
        #expect(!FileManager.default.fileExists(atPath: file + ".3"))
        // The newest events are in the current file, in order, and the numbered files are older.
        let current = lines(file).compactMap { $0["id"]?.intValue }
        let older = lines(file + ".1").compactMap { $0["id"]?.intValue }
        #expect(current == current.sorted() && (older.last ?? 0) < (current.first ?? 0))
        #expect(current.last == 20)
        await plugin.reset()
        await hub.reset()
        try loop.shutdown()
    }

    @Test(
        "a bad block names the key",
        arguments: [
            (["maxFileBytes": 0] as JSONValue, "maxFileBytes"), (["fileName": "a/b"] as JSONValue, "fileName"),
            (["autoFlushEventsInterval": -1] as JSONValue, "autoFlushEventsInterval"), (["maxAttempts": "3"] as JSONValue, "maxAttempts"),
        ] as [(JSONValue, String)])
    func badBlock(_ block: JSONValue, _ key: String) throws {
        let plugin = LocalAnalyticsPlugin()
        #expect {
            try plugin.configure(using: block)
        } throws: { ($0 as? ConfigurationValueError)?.keyPath == key }
    }
}
