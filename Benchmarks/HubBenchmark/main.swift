import Amplify
import AmplifyTestKit
import BenchmarkReport
import CHubFloorBenchmark
import CoreMetrics
import Foundation
import MetricsTestKit

// Hub benchmark: ours (Amplify.Hub on the libuv loop) against, in the same run, a re-creation of
// amplify-swift's dispatcher, Foundation's NotificationCenter and a C floor. Build and run with
//   swift run -c release HubBenchmark            (about a minute)
//   swift run -c release HubBenchmark --quick    (a smoke run, a few seconds)
//   … --json                                     (the text on standard error, JSON on standard output)

var report = BenchmarkReport("HubBenchmark")

// `--test-metrics`: swift-metrics' TestMetrics backend (which keeps every value it is given) is
// bootstrapped first, so the run measures what the Hub's metrics cost with a backend; without it
// no backend is bootstrapped and the Hub does no metric work.
let testMetrics = CommandLine.arguments.contains("--test-metrics") ? TestMetrics() : nil
if let testMetrics { MetricsSystem.bootstrap(testMetrics) }

/// What the TestMetrics backend counted, when it is bootstrapped, and what that cost per event:
/// a drain reports 3 values (the events, the listener calls, the queue depth), so the cost per
/// event is one report's cost times drains per event.
func metricsLine() -> String? {
    guard let testMetrics, let dispatched = try? testMetrics.expectCounter(AmplifyMetrics.hubDispatched),
        let delivered = try? testMetrics.expectCounter(AmplifyMetrics.hubDelivered),
        let depth = try? testMetrics.expectGauge(AmplifyMetrics.hubQueueDepth)
    else { return nil }
    let drains = depth.values.count
    // One drain's report, the Hub's own code on a backend of its own, timed over many reports.
    guard let report = HubMetrics.make(TestMetrics()) else { return nil }
    let reports = 200_000
    let start = ContinuousClock.now
    for index in 0..<reports { report.drained(events: 100, deliveries: 1000, depth: index & 1023) }
    let elapsed = ContinuousClock.now - start
    let perReport = Double(elapsed.components.seconds) * 1e9 / Double(reports) + Double(elapsed.components.attoseconds) / 1e9 / Double(reports)
    let perEvent = perReport * Double(drains) / Double(max(1, dispatched.totalValue))
    return "TestMetrics counted \(dispatched.totalValue) dispatched, \(delivered.totalValue) delivered, in \(drains) drains; "
        + String(format: "one drain's report costs %.0f ns, %.2f ns per event here", perReport, perEvent)
}

let quick = CommandLine.arguments.contains("--quick")
let latencyOnly = CommandLine.arguments.contains("--latency-only")
// `--ours-only P L`: only our throughput with P producers and L listeners (for profiling).
if let flag = CommandLine.arguments.firstIndex(of: "--ours-only"), CommandLine.arguments.count > flag + 2,
    let producers = Int(CommandLine.arguments[flag + 1]), let listeners = Int(CommandLine.arguments[flag + 2])
{
    let result = await Candidates.oursThroughput(producers: producers, listeners: listeners, eventsPerProducer: 12_000_000 / (producers * listeners))
    print(String(format: "ours %d×%d: %.2f M deliveries/s", producers, listeners, result.deliveriesPerSecond / 1e6))
    if let line = metricsLine() { print("  " + line) }
    exit(0)
}
let fastDeliveries = quick ? 400_000 : 12_000_000
let slowDeliveries = quick ? 40_000 : 600_000
let latencySamples = quick ? 500 : 5_000
let latencyInterval: UInt64 = 100_000
let memoryListeners = 10_000
let rounds = quick ? 1 : 3

func millions(_ value: Double) -> String { String(format: "%8.2f", value / 1e6) }
func ratio(_ value: Double) -> String { String(format: "%7.1f×", value) }
func megabytes(_ bytes: Int) -> String { String(format: "%6.1f", Double(bytes) / 1_048_576) }

print(
    "Hub benchmark (\(quick ? "quick" : "full") run, \(ProcessInfo.processInfo.activeProcessorCount) cores, release build\(CommandLine.arguments.contains("--test-metrics") ? ", TestMetrics backend" : ""))"
)
print("")
print("Throughput, million deliveries per second (deliveries = events × listeners):")
print(
    "prod lis |     ours  amplify-style  NotifCenter  C floor | ours÷amplify  C floor÷ours | reordered ours/amplify | peak MB ours/amplify/C | peak queued ours/C"
)

struct Row {
    var producers: Int
    var listeners: Int
    var ours: ThroughputResult
    var amplify: ThroughputResult
    var notificationCenter: ThroughputResult
    var floor: ThroughputResult
}

var rows: [Row] = []
for producers in latencyOnly ? [] : [1, 2] {
    for listeners in [1, 10, 100] {
        let fastEvents = max(1, fastDeliveries / (producers * listeners))
        let slowEvents = max(1, slowDeliveries / (producers * listeners))
        // The fast candidates run `rounds` times, interleaved; each figure is the median run.
        var floorRuns: [ThroughputResult] = []
        var oursRuns: [ThroughputResult] = []
        var centerRuns: [ThroughputResult] = []
        for _ in 0..<rounds {
            floorRuns.append(Candidates.cFloorThroughput(producers: producers, listeners: listeners, eventsPerProducer: fastEvents))
            oursRuns.append(await Candidates.oursThroughput(producers: producers, listeners: listeners, eventsPerProducer: fastEvents))
            centerRuns.append(Candidates.notificationCenterThroughput(producers: producers, listeners: listeners, eventsPerProducer: fastEvents))
        }
        let floor = median(floorRuns, by: \.deliveriesPerSecond)
        let ours = median(oursRuns, by: \.deliveriesPerSecond)
        let center = median(centerRuns, by: \.deliveriesPerSecond)
        let amplify = Candidates.amplifyStyleThroughput(producers: producers, listeners: listeners, eventsPerProducer: slowEvents)
        let row = Row(producers: producers, listeners: listeners, ours: ours, amplify: amplify, notificationCenter: center, floor: floor)
        rows.append(row)
        report.figure(
            "deliveries/s, \(producers) producer(s) × \(listeners) listener(s)", ours.deliveriesPerSecond, unit: "1/s",
            limit: floor.deliveriesPerSecond, limitName: "C floor")
        print(
            String(format: "%4d %3d | ", producers, listeners)
                + "\(millions(ours.deliveriesPerSecond))  \(millions(amplify.deliveriesPerSecond))       \(millions(center.deliveriesPerSecond))  \(millions(floor.deliveriesPerSecond)) | "
                + "\(ratio(ours.deliveriesPerSecond / amplify.deliveriesPerSecond))      \(ratio(floor.deliveriesPerSecond / ours.deliveriesPerSecond)) | "
                + String(format: "%10d / %-10d", ours.reordered, amplify.reordered) + " | "
                + "\(megabytes(ours.peakMemoryBytes)) / \(megabytes(amplify.peakMemoryBytes)) / \(megabytes(floor.peakMemoryBytes)) | "
                + "\(ours.peakQueued) / \(floor.peakQueued)")
        let expectedOurs = producers * listeners * fastEvents
        if ours.deliveries != expectedOurs {
            print("  LOST: ours delivered \(ours.deliveries) of \(expectedOurs)")
        }
    }
}

print("(peak MB is resident memory above the run's start; ours holds one entry per queued event and nothing else,")
print(" so its peak follows the peak queue: a producer faster than the listeners builds a backlog, and nothing is dropped.)")
print("")
print(
    "Latency, dispatch to listener, one event every \(latencyInterval / 1_000) µs, \(latencySamples) samples, median of \(rounds) interleaved runs (µs):"
)
var floorLatencies: [LatencyResult] = []
var oursLatencies: [LatencyResult] = []
for _ in 0..<rounds {
    floorLatencies.append(Candidates.cFloorLatency(samples: latencySamples, intervalNanoseconds: latencyInterval))
    oursLatencies.append(await Candidates.oursLatency(samples: latencySamples, intervalNanoseconds: latencyInterval))
}
let floorLatency = median(floorLatencies, by: \.p99)
let oursLatency = median(oursLatencies, by: \.p99)
let amplifyLatency = Candidates.amplifyStyleLatency(samples: latencySamples, intervalNanoseconds: latencyInterval)
let centerLatency = Candidates.notificationCenterLatency(samples: latencySamples, intervalNanoseconds: latencyInterval)
print("           p50      p99      max  samples over 1 ms")
for (name, latency) in [("ours", oursLatency), ("amplify", amplifyLatency), ("NotifCtr", centerLatency), ("C floor", floorLatency)] {
    print(
        name.padding(toLength: 8, withPad: " ", startingAt: 0)
            + String(format: " %8.1f %8.1f %8.1f  %d", latency.p50, latency.p99, latency.max, latency.overOneMillisecond))
}
print(String(format: "ours÷C floor: p50 %.2f×, p99 %.2f×", oursLatency.p50 / floorLatency.p50, oursLatency.p99 / floorLatency.p99))
report.figure("latency p50, dispatch to listener", oursLatency.p50, unit: "µs", limit: floorLatency.p50, limitName: "C floor", higherIsBetter: false)
report.figure("latency p99, dispatch to listener", oursLatency.p99, unit: "µs", limit: floorLatency.p99, limitName: "C floor", higherIsBetter: false)
print("(NotificationCenter calls observers on the posting thread, so its latency is a function call, not a hand-off.)")

print("")
print("Memory per listener (heap bytes, \(memoryListeners) listeners):")
let oursBytes = await Candidates.oursBytesPerListener(memoryListeners)
let amplifyBytes = Candidates.amplifyStyleBytesPerListener(memoryListeners)
let centerBytes = Candidates.notificationCenterBytesPerListener(memoryListeners)
let floorBytes = Int(c_floor_bytes_per_listener(Int32(memoryListeners)))
print("ours \(oursBytes)  amplify-style \(amplifyBytes)  NotificationCenter \(centerBytes)  C floor \(floorBytes)")
report.figure("heap bytes per listener", Double(oursBytes), unit: "B", limit: Double(floorBytes), limitName: "C floor", higherIsBetter: false)

print("")
let overloadEvents = quick ? 4_000 : 40_000
let overloadBound = quick ? 500 : 5_000
print("Overload: one listener 100 µs per event (over 1000× a dispatch), \(overloadEvents) events of 1 KiB, queue bounded at \(overloadBound):")
let overload = await Overload.run(events: overloadEvents, bound: overloadBound, listenerNanoseconds: 100_000)
let unboundedMegabytes = Double(overloadEvents) * 1.2 / 1024
print(
    String(
        format: "delivered %d of %d, peak queued %d, peak resident +%.1f MB (the whole burst queued would be ~%.0f MB), %d dispatches slowed, %.1f s",
        overload.delivered, overload.events, overload.peakQueued, Double(overload.peakMemoryBytes) / 1_048_576, unboundedMegabytes,
        overload.overloads, overload.seconds))

print("")
print("Targets:")
let tenfold = rows.allSatisfy { $0.ours.deliveriesPerSecond >= 10 * $0.amplify.deliveriesPerSecond }
let withinThree = rows.allSatisfy { $0.floor.deliveriesPerSecond <= 3 * $0.ours.deliveriesPerSecond }
let latencyOK = oursLatency.p50 <= 1.5 * floorLatency.p50 && oursLatency.p99 <= 1.5 * floorLatency.p99
let orderOK = rows.allSatisfy {
    $0.ours.reordered == 0 && $0.ours.deliveries == $0.producers * $0.listeners * max(1, fastDeliveries / ($0.producers * $0.listeners))
}
let nearFloor = rows.allSatisfy { $0.ours.deliveriesPerSecond >= 0.8 * $0.floor.deliveriesPerSecond }
let latencyNear = oursLatency.p50 <= 1.3 * floorLatency.p50 && oursLatency.p99 <= 1.3 * floorLatency.p99
report.goal("at least 10× the amplify-style dispatcher at every listener count", tenfold)
report.goal("within 3× of the C floor at every listener count", withinThree)
report.goal("at least 0.8× the C floor's deliveries/s at every count (issue 21)", nearFloor)
report.goal("p50 and p99 latency within 1.5× of the C floor", latencyOK)
report.goal("p50 and p99 latency within 1.3× of the C floor (issue 21)", latencyNear)
report.goal("at most 128 heap bytes per listener (issue 21)", oursBytes <= 128)
report.goal("zero reordered or lost deliveries", orderOK)
let boundHeld =
    overload.delivered == overload.events && overload.peakQueued <= overloadBound + 2
    && Double(overload.peakMemoryBytes) < Double(overloadBound) * 4 * 1.2 * 1024 + 16 * 1_048_576
report.goal("a listener 1000× slower than its producer: nothing lost, the queue within its bound, memory near it", boundHeld)
report.finish()
