import Amplify
import AmplifyAnalyticsCore
import AmplifySQLite
import BenchmarkReport
import Foundation

// Analytics benchmark: durable recording throughput (events acknowledged per second, each one
// committed to SQLite before it is acknowledged) through the analytics engine's group commit,
// next to a baseline that stores each event in its own SQLite transaction, same schema, same
// WAL settings, same JSON encoding, and the limit: the same rows committed 1,000 per transaction
// (what SQLite itself can take with this schema and these pragmas), in the same run.
//   swift run -c release AnalyticsBenchmark [--quick] [--json]

var report = BenchmarkReport("AnalyticsBenchmark")
let quick = CommandLine.arguments.contains("--quick")
let events = quick ? 5_000 : 50_000
let rounds = quick ? 1 : 3

/// A sender that accepts everything (the benchmark measures recording, not delivery).
struct NullSender: AnalyticsEventSender {
    func send(_ batch: [QueuedRecord]) async -> [RecordOutcome] { batch.map { _ in .accepted } }
}

func folder() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("analytics-bench-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

func seconds(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func event(_ index: Int) -> BasicAnalyticsEvent {
    BasicAnalyticsEvent(name: "orderPlaced", properties: ["seq": index, "total": 59.5, "region": "eu-west-1", "express": true])
}

/// `events` durable records from `tasks` concurrent callers, each awaiting its acknowledgement.
func oursDurable(tasks: Int) async throws -> Double {
    let directory = try folder()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let engine = try AnalyticsEngine(
        queue: DurableEventQueue(path: directory + "/queue.sqlite", maxQueuedEvents: events * 2), sender: NullSender(),
        dispatch: { _, _ in })
    let perTask = events / tasks
    let elapsed = try await seconds {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    for index in 0..<perTask { try await engine.recordDurably(event(task * perTask + index)) }
                }
            }
            try await group.waitForAll()
        }
    }
    guard try await engine.queue.counts().waiting == perTask * tasks else { throw CocoaError(.coderInvalidValue) }
    await engine.close()
    return Double(perTask * tasks) / elapsed
}

/// `events` fire-and-forget `record` calls, timed until the last one is stored.
func oursFireAndForget() async throws -> Double {
    let directory = try folder()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let engine = try AnalyticsEngine(
        queue: DurableEventQueue(path: directory + "/queue.sqlite", maxQueuedEvents: events * 2), sender: NullSender(),
        dispatch: { _, _ in })
    let elapsed = try await seconds {
        for index in 0..<events { engine.record(event(index)) }
        // A durable record after them is stored after them (call order).
        try await engine.recordDurably(event(events))
    }
    guard try await engine.queue.counts().waiting == events + 1 else { throw CocoaError(.coderInvalidValue) }
    await engine.close()
    return Double(events + 1) / elapsed
}

/// The baseline: each event encoded and committed in a transaction of its own, with the queue's
/// schema and the same database settings (WAL, synchronous=NORMAL) and encoding.
func baseline() async throws -> Double {
    let directory = try folder()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let database = try baselineDatabase(directory)
    let encoder = JSONEncoder()
    let count = quick ? events : events / 5
    let elapsed = try await seconds {
        for index in 0..<count {
            let body = Array(try encoder.encode(AnalyticsRecord(event: event(index), globalProperties: [:], userId: nil)))
            _ = try await database.transaction { connection in
                try connection.run("INSERT INTO events (body) VALUES (?)", [.blob(body)])
            }
        }
    }
    await database.close()
    return Double(count) / elapsed
}

/// The limit: the same rows, encoded before the clock starts, committed 1,000 to a transaction
/// with the queue's schema and settings: what SQLite itself takes.
func batchedLimit() async throws -> Double {
    let directory = try folder()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let database = try baselineDatabase(directory)
    let encoder = JSONEncoder()
    let bodies = try (0..<events).map { Array(try encoder.encode(AnalyticsRecord(event: event($0), globalProperties: [:], userId: nil))) }
    let elapsed = try await seconds {
        for first in stride(from: 0, to: bodies.count, by: 1_000) {
            let batch = Array(bodies[first..<min(bodies.count, first + 1_000)])
            _ = try await database.transaction { connection in
                for body in batch { try connection.run("INSERT INTO events (body) VALUES (?)", [.blob(body)]) }
            }
        }
    }
    await database.close()
    return Double(bodies.count) / elapsed
}

/// A database with the queue's tables and settings.
func baselineDatabase(_ directory: String) throws -> SQLiteDatabase {
    try SQLiteDatabase(path: directory + "/baseline.sqlite") { connection in
        try connection.run(
            "CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, body BLOB NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, set_aside INTEGER NOT NULL DEFAULT 0, last_error TEXT)"
        )
        try connection.run("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    }
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

// `--fire-only`: only the fire-and-forget run, for profiling.
if CommandLine.arguments.contains("--fire-only") {
    print(String(format: "ours: record() fire-and-forget %.0f /s", try await oursFireAndForget()))
    exit(0)
}

print(
    "Analytics benchmark (\(quick ? "quick" : "full") run, \(ProcessInfo.processInfo.activeProcessorCount) cores, release build, medians of \(rounds))"
)
print("events acknowledged per second; every acknowledged event is committed to SQLite (WAL, synchronous=NORMAL)")
print("")
var results: [String: [Double]] = [:]
for _ in 0..<rounds {
    results["baseline", default: []].append(try await baseline())
    results["batched", default: []].append(try await batchedLimit())
    results["durable1", default: []].append(try await oursDurable(tasks: 1))
    results["durable64", default: []].append(try await oursDurable(tasks: 64))
    results["fire", default: []].append(try await oursFireAndForget())
}
let base = median(results["baseline"] ?? [1])
let batched = median(results["batched"] ?? [1])
@MainActor func row(_ label: String, _ key: String) {
    let value = median(results[key] ?? [0])
    print(
        label.padding(toLength: 58, withPad: " ", startingAt: 0)
            + String(format: "%10.0f /s   %6.2f× one per transaction   %5.2f× batched", value, value / base, value / batched))
    report.figure(label, value, unit: "events/s", limit: batched, limitName: "SQLite, 1,000 inserts per transaction")
}
row("limit: SQLite, 1,000 inserts per transaction (pre-encoded)", "batched")
row("baseline: one transaction per event", "baseline")
row("ours: recordDurably, 1 caller awaiting each event", "durable1")
row("ours: recordDurably, 64 concurrent callers (group commit)", "durable64")
row("ours: record() fire-and-forget, timed to the last commit", "fire")
print("")
report.goal(
    "durable record() at least 0.5× SQLite batched 1,000 per transaction",
    median(results["fire"] ?? [0]) >= 0.5 * batched)
report.goal("one awaiting caller at least the one-transaction-per-event baseline", median(results["durable1"] ?? [0]) >= base)
report.finish()
