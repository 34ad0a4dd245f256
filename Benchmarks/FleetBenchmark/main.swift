import Amplify
import AmplifyAuthCore
import AmplifyConcurrency
import AmplifyCrypto
import AmplifyEventLoop
import AmplifyFleet
import AmplifyTestKit
import BenchmarkReport
import Foundation
import LocalAuthPlugin

// Fleet benchmark (issue 34): held sessions shared by three instances on one redis-server,
// next to one instance's store holding the same sessions alone, on the embedded local pool
// (90 s access tokens, so that every session falls due within one window).
//   - refreshes per second and the p99 lateness of each session's first refresh against its
//     token's expiry (goal < 1 s, as on one instance);
//   - Redis round trips per refresh, counted by the clients: one instance alone in a fleet (every
//     command is the refresher's; goal ≤ 3), and the three-instance fleet as a whole (the others'
//     claims that find the newer version);
//   - the time from a sign-out on one instance to the session gone from the others (goal p99 <
//     250 ms);
//   - CPU per held session-refresh, the fleet's three instances together next to the one store.
// Run with
//   swift run -c release FleetBenchmark            (10,000 sessions; about six minutes)
//   swift run -c release FleetBenchmark --quick    (1,000 sessions)

let quick = CommandLine.arguments.contains("--quick")
let sessionCount = quick ? 1_000 : 10_000
let soloCount = quick ? 200 : 1_000
let signOutCount = quick ? 50 : 200
var report = BenchmarkReport("FleetBenchmark")

let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm/" : NSTemporaryDirectory()
let folder = base + "fleet-benchmark-\(UUID().uuidString.prefix(8))"
defer { try? FileManager.default.removeItem(atPath: folder) }
let loop = try EventLoop(name: "fleet-benchmark")
let settings: JSONValue = [
    "directory": .string(folder), "accessTokenLifetimeSeconds": 90, "signUpRequiresConfirmation": false, "passwordHashCost": 2,
]
let storeSettings = AuthSessionStore.Settings(refreshLead: 30, jitter: 15, maxConcurrentRefreshes: 16)
let password = "Bench-Passw0rd"
let redis = try await RedisServer.launch()
defer { redis.stop() }
let key = try Digest.randomBytes(32)

print("FleetBenchmark: \(sessionCount) held sessions, 3 instances on one redis-server (127.0.0.1:\(redis.port))\(quick ? " (quick)" : "")")
let names = (0..<sessionCount).map { "user\($0)" }
let soloNames = (0..<soloCount).map { "solo\($0)" }
let setup = try FleetInstance("setup", loop: loop, settings: settings, redisPort: nil, key: key, storeSettings: storeSettings)
let signUpStart = Date()
try await forEach(names + soloNames, width: 4) { name in _ = try await setup.plugin.signUp(username: name, password: password, options: nil) }
print("  signed up \(names.count + soloNames.count) users in \(String(format: "%.1f", Date().timeIntervalSince(signUpStart))) s")

// MARK: One store alone (the baseline)

let alone = try await FleetInstance.measure([setup], users: names, password: password)
await setup.close()
print(
    "  one store: \(alone.refreshes) refreshes in \(String(format: "%.1f", alone.seconds)) s, p99 lateness \(String(format: "%.3f", alone.p99Lateness)) s, \(String(format: "%.0f", alone.cpuPerRefresh * 1e6)) µs CPU per refresh"
)

// MARK: One instance in a fleet: every Redis command is the refresher's

let single = try FleetInstance("single", loop: loop, settings: settings, redisPort: redis.port, key: key, storeSettings: storeSettings)
try await single.store.open()
let singleFigures = try await FleetInstance.measure([single], users: soloNames, password: password)
await single.close()
print("  one fleet instance: \(String(format: "%.2f", singleFigures.commandsPerRefresh)) Redis round trips per refresh")

// MARK: Three instances

_ = try redis.command(["FLUSHALL"])
let instances = try (0..<3).map {
    try FleetInstance("instance-\($0)", loop: loop, settings: settings, redisPort: redis.port, key: key, storeSettings: storeSettings)
}
for instance in instances { try await instance.store.open() }
let fleet = try await FleetInstance.measure(instances, users: names, password: password)
print(
    "  three instances: \(fleet.refreshes) refreshes in \(String(format: "%.1f", fleet.seconds)) s, p99 lateness \(String(format: "%.3f", fleet.p99Lateness)) s, \(String(format: "%.2f", fleet.commandsPerRefresh)) Redis round trips per refresh in all, \(String(format: "%.0f", fleet.cpuPerRefresh * 1e6)) µs CPU per refresh; refused \(fleet.refused)"
)

// MARK: Sign-out on one instance, gone from the others

var propagation: [Double] = []
for name in names.prefix(signOutCount) {
    guard let context = await instances[0].store.context(for: name) else { continue }
    let start = Date()
    _ = await context.run { await Amplify.Auth.signOut() }
    while Date().timeIntervalSince(start) < 5 {
        let second = await instances[1].store.context(for: name)
        let third = await instances[2].store.context(for: name)
        if second == nil, third == nil { break }
        try await Task.sleep(for: .microseconds(200))
    }
    propagation.append(Date().timeIntervalSince(start))
}
for instance in instances { await instance.close() }
try loop.shutdown()

// MARK: Report

func line(_ name: String, _ value: String, _ baseline: String, _ ratio: Double) {
    print(
        "\(name.padding(toLength: 46, withPad: " ", startingAt: 0)) \(value.padding(toLength: 14, withPad: " ", startingAt: 0)) baseline \(baseline.padding(toLength: 16, withPad: " ", startingAt: 0)) ratio \(String(format: "%6.2f", ratio))"
    )
}
print("")
line(
    "refreshes per second (3 instances)", String(format: "%.0f /s", fleet.rate), String(format: "%.0f /s one store", alone.rate),
    fleet.rate / max(alone.rate, 1e-9))
line(
    "p99 lateness vs expiry (3 instances)", String(format: "%.3f s", fleet.p99Lateness), String(format: "%.3f s one store", alone.p99Lateness),
    fleet.p99Lateness / max(alone.p99Lateness, 1e-9))
line(
    "Redis round trips per refresh (refresher)", String(format: "%.2f", singleFigures.commandsPerRefresh), "goal ≤ 3",
    singleFigures.commandsPerRefresh / 3)
line("Redis round trips per refresh (whole fleet)", String(format: "%.2f", fleet.commandsPerRefresh), "3 instances", fleet.commandsPerRefresh / 3)
let p50 = percentile(propagation, 0.5)
let p99 = percentile(propagation, 0.99)
line("sign-out → gone on the others p50", String(format: "%.1f ms", p50 * 1000), "-", p50 / 0.25)
line("sign-out → gone on the others p99", String(format: "%.1f ms", p99 * 1000), "goal < 250 ms", p99 / 0.25)
line(
    "CPU per refresh (3 instances, all of it)", String(format: "%.0f µs", fleet.cpuPerRefresh * 1e6),
    String(format: "%.0f µs one store", alone.cpuPerRefresh * 1e6), fleet.cpuPerRefresh / max(alone.cpuPerRefresh, 1e-9))
let extraPerSession = (fleet.cpuPerSessionSecond - alone.cpuPerSessionSecond) * 1e6
line(
    "extra CPU per held session (per second held)", String(format: "%.2f µs/s", extraPerSession),
    String(format: "%.2f µs/s one store", alone.cpuPerSessionSecond * 1e6), fleet.cpuPerSessionSecond / max(alone.cpuPerSessionSecond, 1e-12))
report.figure("refreshes per second", fleet.rate, unit: "1/s", limit: alone.rate, limitName: "one store")
report.figure("p99 lateness", fleet.p99Lateness, unit: "s", limit: alone.p99Lateness, limitName: "one store", higherIsBetter: false)
report.figure("round trips per refresh", singleFigures.commandsPerRefresh, unit: "", limit: 3, limitName: "goal", higherIsBetter: false)
report.figure("sign-out propagation p99", p99 * 1000, unit: "ms", limit: 250, limitName: "goal", higherIsBetter: false)
report.figure(
    "CPU per refresh", fleet.cpuPerRefresh * 1e6, unit: "µs", limit: alone.cpuPerRefresh * 1e6, limitName: "one store", higherIsBetter: false)
print("")
report.goal("p99 lateness of the fleet's refreshes < 1 s", fleet.p99Lateness < 1 && fleet.missing == 0)
report.goal("every session refreshed, none refused (rotation: none refreshed twice)", fleet.missing == 0 && fleet.refused == 0)
report.goal("Redis round trips per refresh ≤ 3", singleFigures.commandsPerRefresh <= 3)
report.goal("sign-out on one instance gone from the others, p99 < 250 ms", p99 < 0.25)
report.finish()
