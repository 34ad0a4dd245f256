import AWSAPIPlugin
import Amplify
import AmplifyConcurrency
import AmplifyEventLoop
import AmplifyTestKit
import AppSyncEventsHubBridgePlugin
import BenchmarkReport
import Foundation
import RedisHubBridgePlugin

#if canImport(Glibc)
    import Glibc
#endif

// AppSync Events benchmark, against the Events stand-in on 127.0.0.1:
//   1. a burst of 20,000 events written at once to two subscribers of one channel: this
//      process's (the API plugin's Events client) and a Python `websockets` reader (peer.py);
//      events per second received and CPU per event, each reader's own;
//   2. Hub event latency between two processes, dispatch here → bridge → server → bridge →
//      listener in HubBridgePeer, paced: the AppSync Events bridge through the stand-in next to
//      the Redis bridge (pub/sub) through redis-server, side by side.
// Build the peer first:
//   swift build -c release --product HubBridgePeer && swift run -c release EventsBenchmark [--quick] [--json]

var report = BenchmarkReport("EventsBenchmark")
let quick = CommandLine.arguments.contains("--quick")
let burstEvents = quick ? 2_000 : 20_000
let rounds = quick ? 1 : 3
let pacedEvents = quick ? 300 : 2_000

func cpuSeconds(_ who: Int32) -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(who), &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec)
        / 1e6
}

func wallNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

func monotonicNanos() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return now.tv_sec * 1_000_000_000 + now.tv_nsec
}

func median(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.sorted()[values.count / 2] }

func percentile(_ values: [Int], _ fraction: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))])
}

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let python = root.appendingPathComponent(".build/test-tools/venv/bin/python").path
guard FileManager.default.isExecutableFile(atPath: python) else {
    throw BenchmarkError("run scripts/install-test-tools.sh first (the stand-in and the Python peer need its venv)")
}
let peerBinary = ProductRunner.url(of: "HubBridgePeer")
guard FileManager.default.isExecutableFile(atPath: peerBinary.path) else {
    throw BenchmarkError("\(peerBinary.path) is missing: run `swift build -c release --product HubBridgePeer` first")
}

let server = try await AppSyncEventsServer.start(AppSyncEventsServer.Options(apiKeys: ["da2-bench"], keepAliveInterval: 5))
defer { server.stop() }

// MARK: 1. The burst

/// What both readers measured in one burst.
struct BurstRound {
    var swiftRate = 0.0, pythonRate = 0.0, swiftCPU = 0.0, pythonCPU = 0.0
}

final class Receiver: Sendable {
    let first = Locked<Int64?>(nil)
    let last = Locked<Int64>(0)
    let cpu = Locked<Double>(0)
}

func burstRound(_ index: Int, plugin: AWSAPIPlugin) async throws -> BurstRound {
    let path = "/default/burst-\(index)"
    let channel = try await plugin.events.connect(path)
    let sequence = channel.subscribe()
    let receiver = Receiver()
    let connected = Locked(false)
    let count = burstEvents
    // Detached: top-level code runs on the main actor, which waits for the child process below.
    let reader = Task.detached {
        var received = 0
        var cpuStart = 0.0
        for try await event in sequence {
            switch event {
            case .connection(let state):
                if state == .connected {
                    cpuStart = cpuSeconds(RUSAGE_SELF.rawValue)
                    connected.withLock { $0 = true }
                }
            case .data(let value):
                let now = wallNanoseconds()
                guard value["sentNs"]?.doubleValue != nil else { continue }
                receiver.first.withLock { $0 = $0 ?? now }
                receiver.last.withLock { $0 = now }
                received += 1
                if received == count {
                    receiver.cpu.withLock { $0 = cpuSeconds(RUSAGE_SELF.rawValue) - cpuStart }
                    return
                }
            }
        }
    }
    let peer = Process()
    peer.executableURL = URL(fileURLWithPath: python)
    peer.arguments = [
        root.appendingPathComponent("Benchmarks/EventsBenchmark/peer.py").path, server.realtimeEndpoint.absoluteString, "127.0.0.1:\(server.port)",
        "da2-bench", path, String(count),
    ]
    let output = Pipe()
    peer.standardOutput = output
    peer.standardError = FileHandle.nullDevice
    try peer.run()
    let lines = output.fileHandleForReading
    var ready = Data()
    while !ready.contains(UInt8(ascii: "\n")), let byte = try lines.read(upToCount: 1), !byte.isEmpty { ready += byte }
    while !connected.value { try await Task.sleep(for: .milliseconds(5)) }
    let answer = try server.control("burst", ["channel": path, "count": String(count), "size": "100"])
    guard answer["subscriptions"]?.intValue == 2 else { throw BenchmarkError("the burst reached \(answer) subscriptions, not 2") }
    try await reader.value
    let text = lines.readDataToEndOfFile()
    peer.waitUntilExit()
    await channel.close()
    guard let json = try? JSONValue(parsing: Array(text)), let first = json["first"]?.doubleValue, let last = json["last"]?.doubleValue else {
        throw BenchmarkError("the Python peer did not report: \(String(decoding: text.prefix(300), as: UTF8.self))")
    }
    var round = BurstRound()
    round.pythonRate = Double(count) / max((last - first) / 1e9, 1e-9)
    round.pythonCPU = (json["cpu"]?.doubleValue ?? 0) / Double(count)
    round.swiftRate = Double(count) / max(Double(receiver.last.value - (receiver.first.value ?? 0)) / 1e9, 1e-9)
    round.swiftCPU = receiver.cpu.value / Double(count)
    return round
}

let loop = try EventLoop(name: "events-bench")
let hub = DefaultHubPlugin(loop: loop)
let plugin = AWSAPIPlugin(loop: loop, hub: hub)
try plugin.configure(endpoints: [
    APIEndpointConfiguration(
        name: "bench", endpointType: .events, endpoint: server.httpEndpoint, region: "us-east-1", authorizationType: .apiKey, apiKey: "da2-bench")
])
var bursts: [BurstRound] = []
for index in 0..<rounds { bursts.append(try await burstRound(index, plugin: plugin)) }
await plugin.reset()

// MARK: 2. Hub latency between two processes

/// The listener process: prints READY, then one "EVENT seq latency id" line per event.
final class Listener {
    let process = Process()
    let input = Pipe()
    let output = Pipe()
    private var buffer = Data()
    private var offset = 0

    init(_ arguments: [String]) throws {
        process.executableURL = peerBinary
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    func line() -> String? {
        while true {
            if let newline = buffer[offset...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[offset..<newline], as: UTF8.self)
                offset = newline + 1
                return line
            }
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

/// Dispatches `count` events on the bridge here, one every `interval` µs, and returns the
/// listener's latencies (ns), in arrival order.
func latencies(bridge: any HubCategoryPlugin, listener: Listener, count: Int, interval: Int) throws -> [Int] {
    let channel = HubChannel.custom("peer")
    let producer = Thread {
        var next = monotonicNanos()
        for seq in 1...count {
            next += interval * 1000
            while monotonicNanos() < next {}
            bridge.dispatch(
                to: channel,
                payload: HubPayload(
                    eventName: "Peer.event", data: JSONValue.object(["seq": .number(Double(seq)), "sentNanos": .number(Double(monotonicNanos()))])))
        }
    }
    producer.start()
    var latencies: [Int] = []
    while latencies.count < count, let line = listener.line() {
        let words = line.split(separator: " ")
        guard words.count >= 3, words[0] == "EVENT", let latency = Int(words[2]) else { continue }
        latencies.append(latency)
    }
    guard latencies.count == count else { throw BenchmarkError("the listener saw \(latencies.count) of \(count) events") }
    return latencies
}

func waitFor(_ timeout: Duration, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

func eventsBridgeLatencies() async throws -> [Int] {
    let listener = try Listener(["--events", server.httpEndpoint.absoluteString, "--api-key", "da2-bench"])
    defer { listener.stop() }
    guard listener.line() == "READY" else { throw BenchmarkError("the Events listener did not connect") }
    let loop = try EventLoop(name: "events-bridge-bench")
    let hub = DefaultHubPlugin(loop: loop)
    let api = AWSAPIPlugin(loop: loop, hub: hub)
    try api.configure(endpoints: [
        APIEndpointConfiguration(
            name: "events", endpointType: .events, endpoint: server.httpEndpoint, region: "us-east-1", authorizationType: .apiKey,
            apiKey: "da2-bench")
    ])
    let bridge = AppSyncEventsHubBridgePlugin(wrapping: hub, events: api.events)
    bridge.start(
        AppSyncEventsHubBridgeConfiguration(
            channel: "/default/peer", selection: HubBridgeSelection(channels: [.custom("peer")], eventNames: nil), maxQueuedEvents: 1_000_000))
    guard await waitFor(.seconds(10), { bridge.statistics.connected }) else { throw BenchmarkError("the Events bridge did not connect") }
    let result = try latencies(bridge: bridge, listener: listener, count: pacedEvents, interval: 2_000)
    await bridge.reset()
    await api.reset()
    try loop.shutdown()
    return result
}

func redisBridgeLatencies(port: Int) async throws -> [Int] {
    let listener = try Listener(["--port", String(port), "--mode", "pubsub"])
    defer { listener.stop() }
    guard listener.line() == "READY" else { throw BenchmarkError("the Redis listener did not connect") }
    let loop = try EventLoop(name: "redis-bridge-bench")
    let hub = DefaultHubPlugin(loop: loop)
    let bridge = try RedisHubBridgePlugin(wrapping: hub, loop: loop)
    try bridge.start(RedisHubBridgeConfiguration(port: port, mode: .pubsub, channels: [.custom("peer")], eventNames: nil, key: "peer-test"))
    guard await waitFor(.seconds(10), { bridge.statistics.connected }) else { throw BenchmarkError("the Redis bridge did not connect") }
    let result = try latencies(bridge: bridge, listener: listener, count: pacedEvents, interval: 2_000)
    await bridge.reset()
    try loop.shutdown()
    return result
}

let redis = try await RedisServer.launch()
defer { redis.stop() }
var eventsLatencies: [Int] = []
var redisLatencies: [Int] = []
for _ in 0..<rounds {
    eventsLatencies += try await eventsBridgeLatencies()
    redisLatencies += try await redisBridgeLatencies(port: redis.port)
}
try loop.shutdown()

// MARK: Report

let swiftRate = median(bursts.map(\.swiftRate))
let pythonRate = median(bursts.map(\.pythonRate))
let swiftCPU = median(bursts.map(\.swiftCPU)) * 1e6
let pythonCPU = median(bursts.map(\.pythonCPU)) * 1e6
print(
    "AppSync Events benchmark (\(quick ? "quick" : "full") run, \(ProcessInfo.processInfo.activeProcessorCount) cores, release build, medians of \(rounds) rounds) against the Events stand-in on 127.0.0.1"
)
print("")
print("what".padding(toLength: 52, withPad: " ", startingAt: 0) + "      ours      peer   ours÷peer")
@MainActor func row(_ label: String, _ unit: String, _ ours: Double, _ peer: Double, higherIsBetter: Bool) {
    report.figure(label.trimmingCharacters(in: .whitespaces), ours, unit: unit, limit: peer, limitName: "peer", higherIsBetter: higherIsBetter)
    print(
        label.padding(toLength: 52, withPad: " ", startingAt: 0) + String(format: "%10.1f%10.1f%9.2f×", ours, peer, ours / max(peer, 1e-9)) + "  "
            + unit)
}
row(
    "\(burstEvents) events written at once", "events/s received (peer: Python websockets); higher is better", swiftRate, pythonRate,
    higherIsBetter: true)
row("  reader CPU per event", "µs while reading; lower is better", swiftCPU, pythonCPU, higherIsBetter: false)
let events50 = percentile(eventsLatencies, 0.5) / 1000
let events99 = percentile(eventsLatencies, 0.99) / 1000
let redis50 = percentile(redisLatencies, 0.5) / 1000
let redis99 = percentile(redisLatencies, 0.99) / 1000
print("")
print(
    "Hub event between two processes, \(pacedEvents) events one every 2 ms, \(rounds) rounds (peer: the Redis bridge through redis-server, pub/sub)")
row("  AppSync Events bridge, p50", "µs dispatch → listener in the other process", events50, redis50, higherIsBetter: false)
row("  AppSync Events bridge, p99", "µs dispatch → listener in the other process", events99, redis99, higherIsBetter: false)
print("")
_ = report.goal("more events per second than the Python reader on the burst", swiftRate > pythonRate)
_ = report.goal("less CPU per event than the Python reader on the burst", swiftCPU < pythonCPU)
report.finish()
