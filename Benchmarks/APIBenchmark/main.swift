import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import AmplifyConcurrency
import AmplifyEventLoop
import AmplifyTestKit
import BenchmarkReport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

// API benchmark, against the AppSync stand-in on 127.0.0.1, ratios in one run:
//   1. client CPU per GraphQL query: the plugin (libcurl on the loop, JSON in and out, decoding)
//      vs the curl tool sending the same POST (one process for all requests, one connection);
//   2. subscription events per second and p50/p99 latency from a mutation being sent (by a
//      process of its own) to the event reaching the Swift sequence, vs a Python `websockets`
//      client reading the same stream at the same time; and each reader's CPU per event.
// Run with
//   swift run -c release APIBenchmark            (about a minute)
//   swift run -c release APIBenchmark --quick    (a smoke run)
//   swift run -c release APIBenchmark --queries-only   (part 1 alone, for profiling; add
//                                                      --ours-only to leave the curl tool out,
//                                                      --on-loop to call from the loop's task
//                                                      executor, --raw-http to send the same POST
//                                                      through the HTTP client alone)
//   swift run -c release APIBenchmark --burst-only     (part 2b alone, for profiling)
//   swift run -c release APIBenchmark --decode-only    (a query's response decoded in-process,
//                                                      with warm caches and with cold ones)

var report = BenchmarkReport("APIBenchmark")
let quick = CommandLine.arguments.contains("--quick")
let queries = quick ? 200 : 2_000
let events = quick ? 300 : 3_000
let inFlight = 8
let rounds = quick ? 1 : 3
/// Rounds of part 1, ours and the curl tool one after the other in each (taking turns to go
/// first): the goal reads the median of the rounds' ratios, so that a change in the shared VM's
/// speed between rounds (single rounds here swing by ±20 %) moves both sides of a ratio alike.
let queryRounds = quick ? 1 : 9

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func cpuSeconds(_ who: Int32) -> Double {
    let (user, system) = cpuSplit(who)
    return user + system
}

/// User and system CPU seconds of `who` (RUSAGE_SELF or RUSAGE_CHILDREN).
func cpuSplit(_ who: Int32) -> (user: Double, system: Double) {
    var usage = rusage()
    getrusage(__rusage_who_t(who), &usage)
    return (
        Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6, Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    )
}

func nowNanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

func median(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.sorted()[values.count / 2] }

/// Waits for `process` without holding a thread (polling costs next to nothing; a blocking wait
/// would hold the main actor, and Foundation's wait spins a run loop).
func exited(_ process: Process) async -> Int32 {
    while process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
    return process.terminationStatus
}

func percentile(_ values: [Int64], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]) / 1e6
}

struct Todo: Codable, Sendable {
    let id: String
    let name: String
    let description: String?
}

/// `--decode-only`: the response to the benchmark's query decoded in-process, by the plugin's
/// decoder (its span decoder), by its careful path (JSONValue, the decode path, encoded again and
/// decoded with JSONDecoder: amplify-swift's way) and by one JSONDecoder pass into a struct of the
/// response's shape (what a hand-written client would do), each 4000 times with the
/// caches warm and 4000 times after 32 MiB were written between decodes (caches cold, as a query
/// finds them on a machine whose other core runs the stand-in). Prints the median thread CPU.
func decodeOnly() throws {
    let body = Array(#"{"data":{"getTodo":{"id":"3f1c9a56-1111-2222-3333-444455556666","name":"seed","description":"a todo to read"}}}"#.utf8)
    var flush = [UInt8](repeating: 1, count: 32 << 20)
    struct Shape: Decodable {
        struct Data: Decodable { let getTodo: Todo }
        let data: Data
    }
    func threadNanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
    func median(cold: Bool, _ decode: () throws -> Todo) throws -> Double {
        var times: [Int64] = []
        for round in 0..<4_000 {
            if cold { for index in stride(from: round & 63, to: flush.count, by: 64) { flush[index] &+= 1 } }
            let start = threadNanoseconds()
            let todo = try decode()
            times.append(threadNanoseconds() - start)
            guard todo.name == "seed" else { throw BenchmarkError("wrong todo") }
        }
        return Double(times.sorted()[times.count / 2]) / 1e3
    }
    print("decoding the query's response (median thread CPU, µs)   warm    cold")
    for (name, decode) in [
        ("the plugin's decoder (span decoder)", { try GraphQLResponseDecoder.decode(body, as: Todo.self, decodePath: "getTodo").get() }),
        (
            "the careful path (JSONValue, re-encoded, JSONDecoder)",
            { try GraphQLResponseDecoder.carefulDecode(body, as: Todo.self, decodePath: "getTodo").get() }
        ),
        ("one JSONDecoder pass into the response's shape", { try JSONDecoder().decode(Shape.self, from: Data(body)).data.getTodo }),
    ] as [(String, () throws -> Todo)] {
        let warm = try median(cold: false, decode)
        let cold = try median(cold: true, decode)
        print(name.padding(toLength: 56, withPad: " ", startingAt: 0) + String(format: "%6.2f  %6.2f", warm, cold))
    }
}
if CommandLine.arguments.contains("--decode-only") {
    try decodeOnly()
    exit(0)
}

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let python = root.appendingPathComponent(".build/test-tools/venv/bin/python").path
guard FileManager.default.isExecutableFile(atPath: python) else {
    throw BenchmarkError("run scripts/install-test-tools.sh first (the stand-in and the Python peer need its venv)")
}

let server = try await AppSyncServer.start(AppSyncServer.Options(apiKeys: ["da2-bench"], keepAliveInterval: 5))
defer { server.stop() }
let loop = try EventLoop(name: "api-bench")
let hub = DefaultHubPlugin(loop: loop)
let plugin = AWSAPIPlugin(loop: loop, hub: hub)
try plugin.configure(endpoints: [
    APIEndpointConfiguration(
        name: "bench", endpointType: .graphQL, endpoint: server.graphQLEndpoint, region: "us-east-1", authorizationType: .apiKey, apiKey: "da2-bench")
])

// MARK: 1. CPU per query

let seeded = try await plugin.mutate(
    request: GraphQLRequest(
        document: "mutation C($input: CreateTodoInput!) { createTodo(input: $input) { id name description } }",
        variables: ["input": ["name": "seed", "description": "a todo to read"]], responseType: Todo.self, decodePath: "createTodo")
).get()
let document = "query G($id: ID!) { getTodo(id: $id) { id name description } }"
let body = String(
    decoding: try JSONEncoder().encode(JSONValue.object(["query": .string(document), "variables": ["id": .string(seeded.id)]])), as: UTF8.self)
let bodyFile = FileManager.default.temporaryDirectory.appendingPathComponent("api-bench-\(getpid()).json")
try Data(body.utf8).write(to: bodyFile)
defer { try? FileManager.default.removeItem(at: bodyFile) }

// `--burst-only`: part 2b alone, for profiling the real-time reader.
let burstOnly = CommandLine.arguments.contains("--burst-only")
let rawClient = CommandLine.arguments.contains("--raw-http") ? try HTTPClient(loop: loop) : nil
var ours: [Double] = []
var curl: [Double] = []
/// The system (kernel) part of each round's CPU, for `--queries-only`'s line.
var oursSystem: [Double] = []
var curlSystem: [Double] = []
let seededID = seeded.id
/// One round of ours: the queries from a task on the global executor, as a server's request
/// handler calls (top-level code is on the main actor, where every call would pay two more
/// thread hand-offs). Appends the round's CPU (total and kernel part).
@MainActor func measureOurs() async throws {
    let start = cpuSplit(RUSAGE_SELF.rawValue)
    @Sendable func run() async throws {
        // `--raw-http`: the same POST through the HTTP client alone (no API layer), to see what
        // the layer above it costs.
        if let rawClient {
            let request = HTTPRequest(
                method: "POST", url: server.graphQLEndpoint,
                headers: [
                    ("Content-Type", "application/json"), ("Accept", "application/json"), ("x-api-key", "da2-bench"),
                ], body: .bytes(Array(body.utf8)))
            for _ in 0..<queries {
                let response = try await rawClient.send(request)
                guard response.status == 200 else { throw BenchmarkError("status \(response.status)") }
            }
            return
        }
        for _ in 0..<queries {
            let todo = try await plugin.query(
                request: GraphQLRequest(document: document, variables: ["id": seededID], responseType: Todo.self, decodePath: "getTodo")
            ).get()
            guard todo.id == seededID else { throw BenchmarkError("wrong todo") }
        }
    }
    // `--on-loop`: the caller on the loop's task executor (no thread hand-off), to see what they cost.
    if CommandLine.arguments.contains("--on-loop") {
        try await Task.detached { try await withTaskExecutorPreference(loop.taskExecutor) { try await run() } }.value
    } else {
        try await Task.detached { try await run() }.value
    }
    let end = cpuSplit(RUSAGE_SELF.rawValue)
    ours.append(end.user + end.system - start.user - start.system)
    oursSystem.append(end.system - start.system)
}
/// One round of the curl tool: one process for all the queries, on one connection.
@MainActor func measureCurl() async throws {
    // `--ours-only` (with `--queries-only`): no curl tool, for profiling ours alone.
    if CommandLine.arguments.contains("--ours-only") {
        curl.append(0)
        curlSystem.append(0)
        return
    }
    let before = cpuSplit(RUSAGE_CHILDREN.rawValue)
    let tool = Process()
    tool.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    tool.arguments = [
        "curl", "-s", "-f", "-H", "Content-Type: application/json", "-H", "Accept: application/json", "-H", "x-api-key: da2-bench",
        "--data-binary", "@\(bodyFile.path)", "-o", "/dev/null", server.graphQLEndpoint.absoluteString + "?i=[1-\(queries)]",
    ]
    tool.standardOutput = FileHandle.nullDevice
    tool.standardError = FileHandle.nullDevice
    try tool.run()
    let toolStatus = await exited(tool)
    guard toolStatus == 0 else { throw BenchmarkError("curl exited \(toolStatus)") }
    let after = cpuSplit(RUSAGE_CHILDREN.rawValue)
    curl.append(after.user + after.system - before.user - before.system)
    curlSystem.append(after.system - before.system)
}
// The two sides take turns going first, so that a drift in the VM's speed within a round
// favours neither.
for round in 0..<(burstOnly ? 0 : queryRounds) {
    if round.isMultiple(of: 2) {
        try await measureOurs()
        try await measureCurl()
    } else {
        try await measureCurl()
        try await measureOurs()
    }
}
/// The median of the rounds' ours ÷ curl.
let queryRatio = median(zip(ours, curl).map { $0 / max($1, 1e-9) })
if CommandLine.arguments.contains("--queries-only") {
    print(
        String(
            format: "ours %.1f µs (%.1f in the kernel), curl %.1f µs (%.1f) per query, paired ratio %.3f (rounds: %@)",
            median(ours) * 1e6 / Double(queries),
            median(oursSystem) * 1e6 / Double(queries), median(curl) * 1e6 / Double(queries), median(curlSystem) * 1e6 / Double(queries), queryRatio,
            zip(ours, curl).map { String(format: "%.0f/%.0f=%.2f", $0 * 1e6 / Double(queries), $1 * 1e6 / Double(queries), $0 / max($1, 1e-9)) }
                .joined(separator: " ")))
    server.stop()
    exit(0)
}
let oursPerQuery = burstOnly ? 0 : median(ours) * 1e6 / Double(queries)
let curlPerQuery = burstOnly ? 0 : median(curl) * 1e6 / Double(queries)

// MARK: 2. Subscription throughput and latency

final class Receiver: Sendable {
    let latencies = Locked<[Int64]>([])
    let first = Locked<Int64?>(nil)
    let last = Locked<Int64>(0)
    let cpu = Locked<Double>(0)
}

/// What both readers measured in one round.
struct StreamRound {
    var swiftRate = 0.0, pythonRate = 0.0
    var swiftLatencies: [Int64] = [], pythonLatencies: [Int64] = []
    var swiftCPU = 0.0, pythonCPU = 0.0
}

/// One round: the Swift sequence and the Python peer subscribe to `onCreateTodo(name: name)`,
/// `feed` makes the server publish `count` events to both, and each reader reports its rate,
/// latencies (from the time in each todo's description) and CPU per event.
func streamRound(name: String, count: Int, feed: () async throws -> Void) async throws -> StreamRound {
    let receiver = Receiver()
    let sequence = plugin.subscribe(
        request: GraphQLRequest(
            document: "subscription S($name: String) { onCreateTodo(name: $name) { id name description } }", variables: ["name": name],
            responseType: Todo.self, decodePath: "onCreateTodo"))
    let connected = Locked(false)
    // Detached: top-level code runs on the main actor, which waits for the child processes below.
    let reader = Task.detached {
        var received = 0
        var cpuStart = 0.0
        for try await event in sequence {
            switch event {
            case .connection(let state):
                if state == .connected {
                    connected.withLock { $0 = true }
                    cpuStart = cpuSeconds(RUSAGE_SELF.rawValue)
                }
            case .data(let result):
                let now = nowNanoseconds()
                guard let sent = try result.get().description.flatMap({ Int64($0) }) else { continue }
                receiver.latencies.withLock { $0.append(now - sent) }
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
        root.appendingPathComponent("Benchmarks/APIBenchmark/peer.py").path, "read", server.realtimeEndpoint.absoluteString,
        "127.0.0.1:\(server.port)", "da2-bench", name, String(count),
    ]
    let output = Pipe()
    peer.standardOutput = output
    peer.standardError = FileHandle.nullDevice
    try peer.run()
    let lines = output.fileHandleForReading
    var ready = Data()
    while !ready.contains(UInt8(ascii: "\n")), let byte = try lines.read(upToCount: 1), !byte.isEmpty { ready += byte }
    while !connected.value { try await Task.sleep(for: .milliseconds(5)) }
    try await feed()
    try await reader.value
    let answer = lines.readDataToEndOfFile()
    _ = await exited(peer)
    guard let json = try? JSONDecoder().decode(JSONValue.self, from: answer), let latencies = json["latencies"]?.asArray,
        let first = json["first"]?.doubleValue, let last = json["last"]?.doubleValue
    else { throw BenchmarkError("the Python peer did not report: \(String(decoding: answer, as: UTF8.self).prefix(300))") }
    var round = StreamRound()
    round.pythonLatencies = latencies.compactMap { $0.doubleValue.map { Int64($0) } }
    round.pythonRate = Double(count) / max((last - first) / 1e9, 1e-9)
    round.pythonCPU = (json["cpu"]?.doubleValue ?? 0) / Double(count)
    round.swiftLatencies = receiver.latencies.value
    round.swiftRate = Double(count) / max(Double(receiver.last.value - (receiver.first.value ?? 0)) / 1e9, 1e-9)
    round.swiftCPU = receiver.cpu.value / Double(count)
    return round
}

/// Medians of the rates and CPU, and every latency, of several rounds.
struct StreamSummary {
    let swiftRate, pythonRate, swiftCPU, pythonCPU: Double
    let swiftLatencies, pythonLatencies: [Int64]
    init(_ rounds: [StreamRound]) {
        swiftRate = median(rounds.map(\.swiftRate))
        pythonRate = median(rounds.map(\.pythonRate))
        swiftCPU = median(rounds.map(\.swiftCPU))
        pythonCPU = median(rounds.map(\.pythonCPU))
        swiftLatencies = rounds.flatMap(\.swiftLatencies)
        pythonLatencies = rounds.flatMap(\.pythonLatencies)
    }
}

// 2a. Mutations from a process of their own, `inFlight` at a time, each carrying the time it was
// sent: the stand-in (graphql-core) executing each mutation sets the pace.
var mutationRounds: [StreamRound] = []
for round in 0..<(burstOnly ? 0 : rounds) {
    let name = "stream-\(round)"
    mutationRounds.append(
        try await streamRound(name: name, count: events) {
            let mutator = Process()
            mutator.executableURL = URL(fileURLWithPath: python)
            mutator.arguments = [
                root.appendingPathComponent("Benchmarks/APIBenchmark/peer.py").path, "mutate", server.graphQLEndpoint.absoluteString,
                "da2-bench", name, String(events), String(inFlight),
            ]
            mutator.standardOutput = FileHandle.nullDevice
            try mutator.run()
            let mutatorStatus = await exited(mutator)
            guard mutatorStatus == 0 else { throw BenchmarkError("the mutator exited \(mutatorStatus)") }
        })
}
let mutationStream = StreamSummary(mutationRounds)

// 2b. A burst: the stand-in writes `burstEvents` data messages to both subscriptions at once, so
// each reader's rate is its own (how fast it reads and decodes), not the schema's.
let burstEvents = quick ? 2_000 : 20_000
var burstRounds: [StreamRound] = []
for round in 0..<rounds {
    let name = "burst-\(round)"
    burstRounds.append(
        try await streamRound(name: name, count: burstEvents) {
            let answer = try server.control("burst", ["field": "onCreateTodo", "count": String(burstEvents), "name": name])
            guard answer["subscriptions"] == 2 else { throw BenchmarkError("the burst reached \(answer) subscriptions, not 2") }
        })
}
let burstStream = StreamSummary(burstRounds)
if burstOnly {
    print(
        String(
            format: "burst: ours %.0f events/s, %.1f µs CPU per event; Python %.0f events/s, %.1f µs", burstStream.swiftRate,
            burstStream.swiftCPU * 1e6,
            burstStream.pythonRate, burstStream.pythonCPU * 1e6))
    server.stop()
    exit(0)
}

await plugin.reset()
await hub.reset()
try loop.shutdown()

@MainActor func row(_ label: String, _ unit: String, _ ours: Double, _ peer: Double) {
    report.figure(
        label.trimmingCharacters(in: .whitespaces), ours, unit: unit, limit: peer, limitName: "peer",
        higherIsBetter: !unit.contains("lower is better"))
    print(
        label.padding(toLength: 52, withPad: " ", startingAt: 0) + String(format: "%10.1f%10.1f%9.2f×", ours, peer, ours / max(peer, 1e-9)) + "  "
            + unit)
}
print(
    "API benchmark (\(quick ? "quick" : "full") run, \(ProcessInfo.processInfo.activeProcessorCount) cores, release build, medians of \(rounds) rounds, \(queryRounds) for the queries) against the AppSync stand-in on 127.0.0.1"
)
print("")
print("what".padding(toLength: 52, withPad: " ", startingAt: 0) + "      ours      peer   ours÷peer")
row("\(queries) GraphQL queries, one at a time", "µs client CPU per query (peer: curl tool); lower is better", oursPerQuery, curlPerQuery)
print("  ours÷curl, median of \(queryRounds) paired rounds".padding(toLength: 72, withPad: " ", startingAt: 0) + String(format: "%9.2f×", queryRatio))
row(
    "\(events) subscription events, \(inFlight) mutations in flight", "events/s received (peer: Python websockets); higher is better",
    mutationStream.swiftRate, mutationStream.pythonRate)
row(
    "  latency mutation → event, p50", "ms; lower is better", percentile(mutationStream.swiftLatencies, 0.5),
    percentile(mutationStream.pythonLatencies, 0.5))
row(
    "  latency mutation → event, p99", "ms; lower is better", percentile(mutationStream.swiftLatencies, 0.99),
    percentile(mutationStream.pythonLatencies, 0.99))
row("  client CPU per event", "µs while reading; lower is better", mutationStream.swiftCPU * 1e6, mutationStream.pythonCPU * 1e6)
row(
    "\(burstEvents) subscription events sent at once", "events/s received (peer: Python websockets); higher is better", burstStream.swiftRate,
    burstStream.pythonRate)
row(
    "  latency burst start → event, p50", "ms (the backlog drained); lower is better", percentile(burstStream.swiftLatencies, 0.5),
    percentile(burstStream.pythonLatencies, 0.5))
row(
    "  latency burst start → event, p99", "ms (the backlog drained); lower is better", percentile(burstStream.swiftLatencies, 0.99),
    percentile(burstStream.pythonLatencies, 0.99))
row("  client CPU per event", "µs while reading; lower is better", burstStream.swiftCPU * 1e6, burstStream.pythonCPU * 1e6)
print("")
report.goal("a GraphQL query at most 1.2× the curl tool's client CPU (median of the paired rounds' ratios)", burstOnly || queryRatio <= 1.2)
report.goal("more events per second than the Python reader when the stream outruns both (the burst)", burstStream.swiftRate > burstStream.pythonRate)
report.goal(
    "a lower p99 latency than the Python reader on the mutation stream",
    percentile(mutationStream.swiftLatencies, 0.99) < percentile(mutationStream.pythonLatencies, 0.99))
report.finish()
