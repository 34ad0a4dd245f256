import AWSAPIPlugin
import Amplify
import AmplifyConcurrency
import AmplifyEventLoop
import AppSyncEventsHubBridgePlugin
import Foundation
import RedisHubBridgePlugin

#if canImport(Glibc)
    import Glibc
#endif

// A process on the Redis Hub bridge (or, with --events, the AppSync Events Hub bridge), driven by
// the bridges' integration tests and benchmarks.
//   HubBridgePeer --port P --mode pubsub|streams [--group G]
//   HubBridgePeer --events http://127.0.0.1:P/event [--api-key K]
// It prints "READY" once its bridge is connected, then:
// - reads commands on standard input: "publish N" dispatches N events `Peer.event` on channel
//   "peer" (data: {"seq": n, "sentNanos": t}, seq counting from 1 across commands); "wait" prints
//   "PUBLISHED n" once Redis accepted n events in all; "waitskipped N" prints "SKIPPED n" once
//   N of its own events came back from Redis and were skipped; "stats" prints the statistics;
//   "quit" exits;
// - prints each event it receives from other processes as "EVENT <seq> <latency ns> <id>".

/// Polls `condition` every 2 ms for at most 60 s.
func waitUntil(_ condition: () -> Bool) {
    let deadline = Date().addingTimeInterval(60)
    while !condition(), Date() < deadline { usleep(2_000) }
}

func argument(_ name: String) -> String? {
    CommandLine.arguments.firstIndex(of: name).flatMap { $0 + 1 < CommandLine.arguments.count ? CommandLine.arguments[$0 + 1] : nil }
}

func monotonicNanos() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return now.tv_sec * 1_000_000_000 + now.tv_nsec
}

// The lines written, counted: a Locked of an empty value (Locked(())) is reported by ThreadSanitizer
// as a race between its loop-thread and main-thread users (see Locked's documentation).
let output = Locked(0)
func say(_ line: String) {
    output.withLock { written in
        written += 1
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
    }
}

let port = Int(argument("--port") ?? "") ?? 6379
let mode = RedisHubBridgeConfiguration.Mode(rawValue: argument("--mode") ?? "pubsub") ?? .pubsub
let group = argument("--group") ?? "peer-\(getpid())"
let loop = try EventLoop(name: "peer-loop")
let hub = DefaultHubPlugin(loop: loop)
let channel = HubChannel.custom("peer")
let ready = DispatchSemaphore(value: 0)

/// The bridge in use and how to read its counters.
struct PeerBridge {
    let plugin: any HubPluginWrapper
    let published: () -> Int
    let ownSkipped: () -> Int
    let stats: () -> String
    let reset: () async -> Void
}

let bridge: PeerBridge
if let events = argument("--events"), let url = URL(string: events) {
    let api = AWSAPIPlugin(loop: loop, hub: hub)
    try api.configure(endpoints: [
        APIEndpointConfiguration(
            name: "events", endpointType: .events, endpoint: url, region: "us-east-1", authorizationType: .apiKey,
            apiKey: argument("--api-key") ?? "da2-test")
    ])
    let plugin = AppSyncEventsHubBridgePlugin(wrapping: hub, events: api.events)
    plugin.listen(to: AppSyncEventsHubBridgePlugin.statusChannel, isIncluded: nil, file: #fileID, line: #line) { payload in
        if payload.eventName == "AppSyncEventsHubBridge.connected" { ready.signal() }
    }
    plugin.start(
        AppSyncEventsHubBridgeConfiguration(
            channel: "/default/peer", selection: HubBridgeSelection(channels: [channel], eventNames: nil), maxQueuedEvents: 1_000_000))
    bridge = PeerBridge(
        plugin: plugin, published: { plugin.statistics.published }, ownSkipped: { plugin.statistics.ownSkipped },
        stats: {
            let stats = plugin.statistics
            return
                "published=\(stats.published) received=\(stats.received) ownSkipped=\(stats.ownSkipped) dropped=\(stats.dropped) gaps=\(stats.gaps)"
        },
        reset: {
            await plugin.reset()
            await api.reset()
        })
} else {
    let plugin = try RedisHubBridgePlugin(wrapping: hub, loop: loop)
    plugin.listen(to: RedisHubBridgePlugin.statusChannel, isIncluded: nil, file: #fileID, line: #line) { payload in
        if payload.eventName == "RedisHubBridge.connected" { ready.signal() }
    }
    try plugin.start(
        RedisHubBridgeConfiguration(
            port: port, mode: mode, channels: [channel], eventNames: nil, key: "peer-test", consumerGroup: group,
            reconnectDelay: .milliseconds(50), maxReconnectDelay: .milliseconds(500)))
    bridge = PeerBridge(
        plugin: plugin, published: { plugin.statistics.published }, ownSkipped: { plugin.statistics.ownSkipped },
        stats: {
            let stats = plugin.statistics
            return
                "published=\(stats.published) received=\(stats.received) ownSkipped=\(stats.ownSkipped) dropped=\(stats.dropped) disconnections=\(stats.disconnections)"
        },
        reset: { await plugin.reset() })
}
_ = bridge.plugin.listen(to: channel, isIncluded: nil, file: #fileID, line: #line) { payload in
    guard let remote = payload.context as? RemoteHubEvent, let data = payload.data as? JSONValue,
        let seq = data["seq"]?.intValue, let sent = data["sentNanos"]?.intValue
    else { return }
    say("EVENT \(seq) \(monotonicNanos() - sent) \(remote.id)")
}
if ready.wait(timeout: .now() + 10) == .success { say("READY") } else { say("NOT-CONNECTED") }

var next = 1
while let line = readLine() {
    let words = line.split(separator: " ")
    switch words.first {
    case "publish":
        let count = words.count > 1 ? Int(words[1]) ?? 0 : 0
        for _ in 0..<count {
            bridge.plugin.dispatch(
                to: channel,
                payload: HubPayload(
                    eventName: "Peer.event",
                    data: JSONValue.object([
                        "seq": .number(Double(next)), "sentNanos": .number(Double(monotonicNanos())),
                    ])))
            next += 1
        }
    case "wait":
        waitUntil { bridge.published() >= next - 1 }
        say("PUBLISHED \(bridge.published())")
    case "waitskipped":
        // Its own events come back from Redis after the listeners may have had theirs.
        let count = words.count > 1 ? Int(words[1]) ?? 0 : 0
        waitUntil { bridge.ownSkipped() >= count }
        say("SKIPPED \(bridge.ownSkipped())")
    case "stats":
        say("STATS " + bridge.stats())
    case "quit":
        await hub.flush()
        await bridge.reset()
        try loop.shutdown()
        exit(0)
    default:
        break
    }
}
await bridge.reset()
try loop.shutdown()
