import AmplifyTestKit
import Foundation
import Testing

/// Separate `HubBridgePeer` processes on the test's own redis-server. The tests read the peers'
/// output with blocking reads, so each runs on a thread of its own (``offThePool(_:)``).
@Suite("Redis Hub bridge: separate processes")
struct CrossProcessTests {
    /// A running peer: commands on its standard input, lines from its standard output.
    final class Peer {
        let process = Process()
        private let input = Pipe()
        private let output = Pipe()
        private var buffer = Data()

        init(port: Int, mode: String, group: String) throws {
            process.executableURL = ProductRunner.url(of: "HubBridgePeer")
            process.arguments = ["--port", String(port), "--mode", mode, "--group", group]
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.runSerialized()
        }

        func send(_ command: String) {
            try? input.fileHandleForWriting.write(contentsOf: Data((command + "\n").utf8))
        }

        /// The next line, or `nil` once the peer has exited.
        func line() -> String? {
            while true {
                if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...newline)
                    return line
                }
                let chunk = output.fileHandleForReading.availableData
                guard !chunk.isEmpty else { return nil }
                buffer.append(chunk)
            }
        }

        /// Sequence numbers of the next `count` events it prints.
        func events(_ count: Int) -> [Int] {
            var seqs: [Int] = []
            while seqs.count < count, let line = line() {
                let words = line.split(separator: " ")
                if words.first == "EVENT", words.count >= 2, let seq = Int(words[1]) { seqs.append(seq) }
            }
            return seqs
        }

        func stop() {
            send("quit")
            try? input.fileHandleForWriting.close()
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning, Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    @Test(
        "pub/sub: two listener processes each get a publisher process's 2000 events once, in its order; the publisher gets none back",
        .timeLimit(.minutes(10)))
    func pubsubAcrossProcesses() async throws {
        try await offThePool { try Self.pubsub() }
    }

    private static func pubsub() throws {
        let redis = try RedisServer.launchBlocking()
        defer { redis.stop() }
        let listeners = try [Peer(port: redis.port, mode: "pubsub", group: "l1"), Peer(port: redis.port, mode: "pubsub", group: "l2")]
        let publisher = try Peer(port: redis.port, mode: "pubsub", group: "p")
        defer { (listeners + [publisher]).forEach { $0.stop() } }
        for peer in listeners + [publisher] { #expect(peer.line() == "READY") }
        publisher.send("publish 2000")
        publisher.send("wait")
        #expect(publisher.line() == "PUBLISHED 2000")
        for listener in listeners { #expect(listener.events(2000) == Array(1...2000)) }
        publisher.send("waitskipped 2000")
        #expect(publisher.line() == "SKIPPED 2000")
        publisher.send("stats")
        let stats = publisher.line() ?? ""
        #expect(stats.contains("received=0"))
        #expect(stats.contains("ownSkipped=2000"))
    }

    @Test("streams: redis-server restarted mid-run with a listener process waiting; every event arrives, in order", .timeLimit(.minutes(10)))
    func streamsRestartAcrossProcesses() async throws {
        try await offThePool { try Self.streamsRestart() }
    }

    private static func streamsRestart() throws {
        let redis = try RedisServer.launchBlocking()
        defer { redis.stop() }
        let listener = try Peer(port: redis.port, mode: "streams", group: "listener")
        let publisher = try Peer(port: redis.port, mode: "streams", group: "publisher")
        defer { [listener, publisher].forEach { $0.stop() } }
        #expect(listener.line() == "READY")
        #expect(publisher.line() == "READY")
        publisher.send("publish 500")
        #expect(listener.events(500) == Array(1...500))
        try redis.restartBlocking()
        publisher.send("publish 500")
        publisher.send("wait")
        #expect(publisher.line() == "PUBLISHED 1000")
        #expect(listener.events(500) == Array(501...1000))
    }
}
