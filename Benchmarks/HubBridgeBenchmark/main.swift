import Amplify
import AmplifyEventLoop
import AmplifyTestKit
import BenchmarkReport
import Foundation
import RedisHubBridgePlugin

#if canImport(Glibc)
    import Glibc
#endif

// Redis Hub bridge benchmark: events per second and latency from a bridge in this process to a
// listener process (HubBridgePeer) through the same redis-server, next to redis-benchmark's
// PUBLISH and XADD figures on that server in the same run. Build the peer first:
//   swift build -c release --product HubBridgePeer && swift run -c release HubBridgeBenchmark [--quick] [--json]

var benchmarkReport = BenchmarkReport("HubBridgeBenchmark")
let quick = CommandLine.arguments.contains("--quick")
let events = quick ? 5_000 : 100_000
let rounds = quick ? 1 : 3

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
}

func monotonicNanos() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return now.tv_sec * 1_000_000_000 + now.tv_nsec
}

/// The listener process: prints READY, then one "EVENT seq latency id" line per event.
final class Listener {
    let process = Process()
    let input = Pipe()
    let output = Pipe()
    var buffer = Data()

    init(port: Int, mode: String) throws {
        let peer = ProductRunner.url(of: "HubBridgePeer")
        guard FileManager.default.isExecutableFile(atPath: peer.path) else {
            throw BenchmarkError(description: "\(peer.path) is missing: run `swift build -c release --product HubBridgePeer` first")
        }
        process.executableURL = peer
        process.arguments = ["--port", String(port), "--mode", mode, "--group", "bench-\(mode)-\(UUID().uuidString.prefix(6))"]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    private var offset = 0

    func line() -> String? {
        while true {
            if let newline = buffer[offset...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[offset..<newline], as: UTF8.self)
                offset = newline + 1
                return line
            }
            // Keep only the unread tail before reading more (never shifting per line).
            buffer = Data(buffer[offset...])
            offset = 0
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { return nil }
            buffer.append(chunk)
        }
    }

    func stop() {
        try? input.fileHandleForWriting.write(contentsOf: Data("quit\n".utf8))
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

struct Result {
    var eventsPerSecond: Double
    var p50: Double
    var p99: Double
    var outOfOrder: Int
}

func percentile(_ sorted: [Int], _ fraction: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]) / 1000
}

/// Publishes `count` events from a bridge here, as fast as `dispatch` returns (or one every
/// `interval` µs), and times their arrival in the listener process.
func runOurs(port: Int, mode: RedisHubBridgeConfiguration.Mode, count: Int, interval: Int = 0) async throws -> Result {
    let listener = try Listener(port: port, mode: mode.rawValue)
    defer { listener.stop() }
    guard listener.line() == "READY" else { throw BenchmarkError(description: "the listener did not connect") }
    let loop = try EventLoop(name: "bench-bridge")
    let hub = DefaultHubPlugin(loop: loop)
    let bridge = try RedisHubBridgePlugin(wrapping: hub, loop: loop)
    let connected = DispatchSemaphore(value: 0)
    bridge.listen(to: RedisHubBridgePlugin.statusChannel, eventName: "RedisHubBridge.connected", file: #fileID, line: #line) { _ in connected.signal()
    }
    let channel = HubChannel.custom("peer")
    try bridge.start(RedisHubBridgeConfiguration(port: port, mode: mode, channels: [channel], eventNames: nil, key: "peer-test"))
    guard connected.wait(timeout: .now() + 10) == .success else { throw BenchmarkError(description: "the bridge did not connect") }
    let start = monotonicNanos()
    let producer = Thread {
        var next = monotonicNanos()
        for seq in 1...count {
            if interval > 0 {
                next += interval * 1000
                while monotonicNanos() < next {}
            }
            bridge.dispatch(
                to: channel,
                payload: HubPayload(
                    eventName: "Peer.event",
                    data: JSONValue.object([
                        "seq": .number(Double(seq)), "sentNanos": .number(Double(monotonicNanos())),
                    ])))
        }
    }
    producer.start()
    var latencies: [Int] = []
    latencies.reserveCapacity(count)
    var last = 0
    var outOfOrder = 0
    while latencies.count < count, let line = listener.line() {
        let words = line.split(separator: " ")
        guard words.count >= 3, words[0] == "EVENT", let seq = Int(words[1]), let latency = Int(words[2]) else { continue }
        if seq != last + 1 { outOfOrder += 1 }
        last = seq
        latencies.append(latency)
    }
    let elapsed = Double(monotonicNanos() - start) / 1e9
    await bridge.reset()
    try loop.shutdown()
    guard latencies.count == count else { throw BenchmarkError(description: "the listener saw \(latencies.count) of \(count) events") }
    latencies.sort()
    return Result(eventsPerSecond: Double(count) / elapsed, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), outOfOrder: outOfOrder)
}

/// redis-benchmark's own line for `command` (requests per second and latency percentiles).
func redisBenchmark(port: Int, count: Int, _ command: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["redis-benchmark", "-h", "127.0.0.1", "-p", String(port), "-n", String(count), "-q"] + command
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let line = text.split(whereSeparator: { $0 == "\r" || $0 == "\n" }).last.map(String.init) ?? "(no output)"
    // Its line repeats the whole command; keep the command's name and the figures.
    return command.first(where: { !$0.hasPrefix("-") && Int($0) == nil }).map { "\($0): " }.map {
        $0 + (line.components(separatedBy: "}: ").last ?? line)
    } ?? line
}

let redis = try await RedisServer.launch()
defer { redis.stop() }
// A payload of the size our events have on the wire.
let sample =
    #"{"v":1,"id":"6F1C3B0E-6A4B-4F0B-9C61-0D2B4C9E7A11","origin":"2B7E1D9A-3C5F-4E8A-B1D2-7F6A5C4B3E21","channel":"peer","event":"Peer.event","time":1764512345.678,"dataType":"Amplify.JSONValue","data":{"seq":12345,"sentNanos":123456789012345}}"#

print(
    "Redis Hub bridge benchmark (\(quick ? "quick" : "full") run, \(ProcessInfo.processInfo.activeProcessorCount) cores, release build, \(events) events, medians of \(rounds))"
)
print("ours: Amplify.Hub.dispatch in this process -> bridge -> redis-server -> bridge -> listener in another process")
print("")
let paced = quick ? 500 : 5_000
print("throughput: \(events) events dispatched flat out (latency here is mostly queueing)")
var throughput: [String: Double] = [:]
var outOfOrder = 0
for mode in [RedisHubBridgeConfiguration.Mode.pubsub, .streams] {
    var results: [Result] = []
    for _ in 0..<rounds { results.append(try await runOurs(port: redis.port, mode: mode, count: events)) }
    throughput[mode.rawValue] = report(mode, results, "flat out")
}
print("latency: \(paced) events, one every 500 µs")
for mode in [RedisHubBridgeConfiguration.Mode.pubsub, .streams] {
    var results: [Result] = []
    for _ in 0..<rounds { results.append(try await runOurs(port: redis.port, mode: mode, count: paced, interval: 500)) }
    _ = report(mode, results, "one every 500 µs")
}

/// Prints one row and records its latencies; returns the median rate.
@MainActor func report(_ mode: RedisHubBridgeConfiguration.Mode, _ results: [Result], _ pace: String) -> Double {
    let rate = results.map(\.eventsPerSecond).sorted()[results.count / 2]
    let p50 = results.map(\.p50).sorted()[results.count / 2]
    let p99 = results.map(\.p99).sorted()[results.count / 2]
    outOfOrder += results.map(\.outOfOrder).reduce(0, +)
    print(
        String(
            format: "  ours %-8@ %9.0f events/s   p50 %9.1f µs   p99 %9.1f µs   out of order: %d",
            mode.rawValue as NSString, rate, p50, p99, results.map(\.outOfOrder).reduce(0, +)))
    benchmarkReport.figure("\(mode.rawValue) \(pace), latency p50", p50, unit: "µs", higherIsBetter: false)
    benchmarkReport.figure("\(mode.rawValue) \(pace), latency p99", p99, unit: "µs", higherIsBetter: false)
    return rate
}

/// The requests per second in a redis-benchmark line.
func requestsPerSecond(_ line: String) -> Double? {
    guard let range = line.range(of: " requests per second") else { return nil }
    return Double(line[..<range.lowerBound].split(separator: " ").last ?? "")
}
print("")
print("redis-benchmark on the same server (50 clients, one command per round trip):")
let publishLine = try redisBenchmark(port: redis.port, count: events, ["PUBLISH", "peer-test", sample])
let xaddLine = try redisBenchmark(port: redis.port, count: events, ["XADD", "bench-stream", "MAXLEN", "~", "100000", "*", "e", sample])
print("  " + publishLine)
print("  " + xaddLine)
print("redis-benchmark pipelined 16 deep (its ceiling):")
print("  " + (try redisBenchmark(port: redis.port, count: events * 4, ["-P", "16", "PUBLISH", "peer-test", sample])))
benchmarkReport.figure(
    "pubsub flat out, events/s", throughput["pubsub"] ?? 0, unit: "1/s", limit: requestsPerSecond(publishLine), limitName: "redis-benchmark PUBLISH")
benchmarkReport.figure(
    "streams flat out, events/s", throughput["streams"] ?? 0, unit: "1/s", limit: requestsPerSecond(xaddLine), limitName: "redis-benchmark XADD")
print("")
benchmarkReport.goal("every event delivered, in order, in both modes", outOfOrder == 0)
benchmarkReport.finish()
