import AmplifyTestKit
import CHubFloorBenchmark
import Foundation
import Synchronization

/// Nanoseconds on the clock every candidate uses.
@inline(__always)
func nowNanoseconds() -> UInt64 { c_floor_now_ns() }

/// Heap bytes in use, from glibc's allocator.
func heapBytesInUse() -> Int { Int(c_floor_heap_bytes()) }

/// Samples resident memory every millisecond while a run goes on, and keeps the peak.
final class PeakMemorySampler: Sendable {
    private let peak = Atomic<Int>(0)
    private let running = Atomic<Bool>(true)
    private let finished = DispatchSemaphore(value: 0)
    let baseline: Int

    init() {
        baseline = residentMemoryBytes()
        peak.store(baseline, ordering: .relaxed)
        Thread { [self] in
            while running.load(ordering: .relaxed) {
                let now = residentMemoryBytes()
                if now > peak.load(ordering: .relaxed) { peak.store(now, ordering: .relaxed) }
                usleep(1_000)
            }
            finished.signal()
        }.start()
    }

    /// Stops sampling; returns how far resident memory rose above where it started, in bytes.
    func stop() -> Int {
        running.store(false, ordering: .relaxed)
        finished.wait()
        return max(0, peak.load(ordering: .relaxed) - baseline)
    }
}

/// Sleeps until about `deadline`, leaving the core to the loop under test (every sample is
/// stamped just before its dispatch, so the sleep's precision does not matter).
@inline(__always)
func pace(until deadline: UInt64) {
    let now = nowNanoseconds()
    guard deadline > now else { return }
    var request = timespec(tv_sec: Int(deadline - now) / 1_000_000_000, tv_nsec: Int(deadline - now) % 1_000_000_000)
    nanosleep(&request, nil)
}

/// The median of `values` by `key` (the middle run of an odd number of runs).
func median<T>(_ values: [T], by key: (T) -> Double) -> T {
    let sorted = values.sorted { key($0) < key($1) }
    return sorted[sorted.count / 2]
}

/// The value at `fraction` (0...1) of sorted `values`.
func percentile(_ sorted: [UInt64], _ fraction: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let index = min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))
    return Double(sorted[index])
}

/// One throughput run's outcome.
struct ThroughputResult {
    var seconds: Double
    var deliveries: Int
    var reordered: Int
    var peakMemoryBytes: Int
    /// The most events waiting in the queue at once (ours and the C floor report it).
    var peakQueued = 0

    var deliveriesPerSecond: Double { Double(deliveries) / seconds }
}

/// One latency run's outcome, in microseconds.
struct LatencyResult {
    var p50: Double
    var p99: Double
    var max: Double
    var overOneMillisecond: Int

    init(nanoseconds: [UInt64]) {
        let sorted = nanoseconds.sorted()
        p50 = percentile(sorted, 0.50) / 1_000
        p99 = percentile(sorted, 0.99) / 1_000
        max = Double(sorted.last ?? 0) / 1_000
        overOneMillisecond = sorted.filter { $0 > 1_000_000 }.count
    }
}
