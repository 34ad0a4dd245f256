import AmplifyTestKit
import Foundation
import Testing

@Suite("Examples/HubBridge")
struct HubBridgeExampleTests {
    @Test("the watch process sees the user that the sign-out process signed in and out, through Redis", .timeLimit(.minutes(10)))
    func watcherFollowsOtherProcess() async throws {
        let redis = try await RedisServer.launch()
        defer { redis.stop() }
        let url = "redis://127.0.0.1:\(redis.port)"
        let watcher = Process()
        watcher.executableURL = ProductRunner.url(of: "HubBridgeExample")
        watcher.arguments = ["watch", url]
        let output = Pipe()
        watcher.standardOutput = output
        watcher.standardError = FileHandle.nullDevice
        watcher.standardInput = FileHandle.nullDevice
        try watcher.runSerialized()
        defer { if watcher.isRunning { kill(watcher.processIdentifier, SIGKILL) } }
        // The watcher's output is read with blocking reads, on a thread of their own.
        let reading = output.fileHandleForReading
        var seen = try await offThePool {
            var seen = Data()
            while !String(decoding: seen, as: UTF8.self).contains("watching") {
                let chunk = reading.availableData
                guard !chunk.isEmpty else { break }
                seen.append(chunk)
            }
            return seen
        }
        let signer = try await ProductRunner.run("HubBridgeExample", ["sign-out", url])
        #expect(signer.exitCode == 0)
        #expect(signer.stdout.contains("signed out alice"))
        seen.append(try await offThePool { reading.readDataToEndOfFile() })
        await watcher.exited()
        let lines = String(decoding: seen, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(watcher.terminationStatus == 0)
        #expect(
            lines.filter { $0.hasPrefix("session state:") } == [
                "session state: signed out (initial)", "session state: signed in as alice", "session state: signed out (signedOut)",
            ])
    }
}
