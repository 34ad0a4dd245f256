import Amplify
import AmplifyAuthCore
import AmplifyConcurrency
import AmplifyEventLoop
import Foundation
import LocalAuthPlugin

#if canImport(Glibc)
    import Glibc
#endif

// Session benchmark (issue 19): many users held in one process on the embedded local pool.
//   - resident memory per held session beyond its tokens (goal ≤ 8 KiB), next to a bare
//     dictionary of the same sessions (the baseline);
//   - CPU per timer-driven refresh, next to the pool's token exchange called directly;
//   - the p99 lateness of the store's refreshes against the access tokens' expiry when every
//     session expires within one minute (goal < 1 s), and the concurrency cap honoured;
//   - a call inside a server context vs the same call on the process-wide session (goal:
//     overhead < 1 µs per call).
// Run with
//   swift run -c release SessionBenchmark            (10,000 sessions; about two minutes)
//   swift run -c release SessionBenchmark --quick    (1,000 sessions; a smoke run)
// then 1,000 (quick: 200) sessions against moto_server (the test tools' venv; --no-moto skips it).

if CommandLine.arguments.contains("--hot-paths") {
    try await HotPaths.run()
    exit(0)
}
if CommandLine.arguments.contains("--deny-list") {
    DenyListCost.run()
    exit(0)
}

let quick = CommandLine.arguments.contains("--quick")
let sessionCount = quick ? 1_000 : 10_000
let exchangeCount = quick ? 100 : 500
let callCount = quick ? 5_000 : 50_000
let rounds = quick ? 3 : 5
let cap = 16

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// Resident bytes of this process (`/proc/self/statm`).
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}

func verdict(_ pass: Bool) -> String { pass ? "PASS" : "MISS" }

func report(_ name: String, _ value: String, baseline: String, ratio: Double, goal: String, pass: Bool?) {
    let outcome = pass.map(verdict) ?? "-"
    print(
        "\(name.padding(toLength: 44, withPad: " ", startingAt: 0)) \(value.padding(toLength: 14, withPad: " ", startingAt: 0)) baseline \(baseline.padding(toLength: 14, withPad: " ", startingAt: 0)) ratio \(String(format: "%6.2f", ratio))  goal \(goal.padding(toLength: 10, withPad: " ", startingAt: 0)) \(outcome)"
    )
}

/// Runs `body` for each of `items`, `width` at a time.
func forEach<T: Sendable>(_ items: [T], width: Int, _ body: @escaping @Sendable (T) async throws -> Void) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        var iterator = items.makeIterator()
        for _ in 0..<width { if let item = iterator.next() { group.addTask { try await body(item) } } }
        while try await group.next() != nil { if let item = iterator.next() { group.addTask { try await body(item) } } }
    }
}

// The moto part first, in a fresh process, so its memory growth is not hidden by heap the local
// part freed.
let motoCount = quick ? 200 : 1_000
let motoFigures = CommandLine.arguments.contains("--no-moto") ? nil : try await MotoPart.run(sessions: motoCount, cap: cap)
if let motoFigures { print("  moto part: \(motoFigures.sessions) sessions held and refreshed") }

let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm/" : NSTemporaryDirectory()
let folder = base + "session-benchmark-\(UUID().uuidString.prefix(8))"
defer { try? FileManager.default.removeItem(atPath: folder) }
let loop = try EventLoop(name: "session-benchmark")
let hub = DefaultHubPlugin(loop: loop)
let plugin = LocalAuthPlugin(hub: hub, eventLoop: loop)
try plugin.configure(
    using: JSONValue.object([
        "directory": .string(folder), "accessTokenLifetimeSeconds": 60, "signUpRequiresConfirmation": false, "passwordHashCost": 2,
    ]))
let password = "Bench-Passw0rd"
let names = (0..<sessionCount).map { "user\($0)" }
let extras = (0..<exchangeCount).map { "extra\($0)" }
print("SessionBenchmark: \(sessionCount) held sessions on the local pool (\(folder)), cap \(cap)\(quick ? " (quick)" : "")")
let setupStart = Date()
try await forEach(names + extras + ["solo"], width: 4) { name in _ = try await plugin.signUp(username: name, password: password, options: nil) }
print("  signed up \(names.count + extras.count + 1) users in \(String(format: "%.1f", Date().timeIntervalSince(setupStart))) s")

// MARK: Memory per held session

let store = try AuthSessionStore(
    plugin: plugin, credentialStorePath: nil, settings: .init(refreshLead: 30, jitter: 15, maxConcurrentRefreshes: cap), eventLoop: { loop })
let records = Locked<[String: AuthSessionStore.RefreshRecord]>([:])
let refreshCount = Locked(0)
await store.observeRefreshes { record in
    refreshCount.withLock { $0 += 1 }
    records.withLock { if $0[record.username] == nil { $0[record.username] = record } }
}
await hub.flush()
let rssBefore = residentBytes()
let signInStart = Date()
try await forEach(names, width: 4) { name in
    let context = try await store.newContext()
    _ = try await context.run { try await plugin.signIn(username: name, password: password, options: nil) }
}
let signInSeconds = Date().timeIntervalSince(signInStart)
await hub.flush()
let rssAfter = residentBytes()
var tokenBytes = 0
var copies: [StoredSession] = []
copies.reserveCapacity(sessionCount)
for name in names {
    guard let session = await store.context(for: name)?.session.current else { continue }
    tokenBytes += session.idToken.utf8.count + session.accessToken.utf8.count + session.refreshToken.utf8.count
    copies.append(session)
}
let perSession = Double(rssAfter - rssBefore - tokenBytes) / Double(sessionCount)
print(
    "  \(sessionCount) sign-ins into held sessions in \(String(format: "%.1f", signInSeconds)) s; tokens \(tokenBytes / sessionCount) B per session")

// The baseline: the same sessions as bare values in a dictionary (fresh copies of every string).
let rssBaselineBefore = residentBytes()
var bare: [String: StoredSession] = [:]
bare.reserveCapacity(sessionCount)
for session in copies {
    bare[String(decoding: Array(session.username.utf8), as: UTF8.self)] = StoredSession(
        username: String(decoding: Array(session.username.utf8), as: UTF8.self), userId: String(decoding: Array(session.userId.utf8), as: UTF8.self),
        idToken: String(decoding: Array(session.idToken.utf8), as: UTF8.self),
        accessToken: String(decoding: Array(session.accessToken.utf8), as: UTF8.self),
        refreshToken: String(decoding: Array(session.refreshToken.utf8), as: UTF8.self), accessTokenExpiresAt: session.accessTokenExpiresAt,
        refreshTokenExpiresAt: session.refreshTokenExpiresAt)
}
let bareSession = max(1, Double(residentBytes() - rssBaselineBefore - tokenBytes) / Double(sessionCount))
let expiries = copies.map(\.accessTokenExpiresAt.timeIntervalSince1970)
let spread = (expiries.max() ?? 0) - (expiries.min() ?? 0)

// MARK: Refreshes when every session expires within a minute

// The process's idle CPU rate (loop, Hub), measured first and taken off the refresh window's CPU.
let idleStart = (Date(), cpuSeconds())
try await Task.sleep(for: .seconds(2))
let idleRate = (cpuSeconds() - idleStart.1) / Date().timeIntervalSince(idleStart.0)
let refreshStart = Date()
let cpuAtRefreshStart = cpuSeconds()
let refreshCountAtStart = refreshCount.value
while records.value.count < sessionCount, Date().timeIntervalSince(refreshStart) < 150 {
    try await Task.sleep(for: .milliseconds(200))
}
let refreshSeconds = Date().timeIntervalSince(refreshStart)
let cpuDuringRefreshes = max(0, cpuSeconds() - cpuAtRefreshStart - idleRate * Date().timeIntervalSince(refreshStart))
let refreshesDone = refreshCount.value - refreshCountAtStart
let firstRecords = Array(records.value.values)
let lateness = firstRecords.map { max(0, $0.endedAt.timeIntervalSince($0.expiresAt)) }
let timerLateness = firstRecords.map { max(0, $0.startedAt.timeIntervalSince($0.dueAt)) }
let failed = firstRecords.filter { !$0.succeeded }.count
let cpuPerRefresh = cpuDuringRefreshes / Double(max(1, refreshesDone))

// Baseline: the pool's exchange called directly, one at a time, on sessions of their own.
var extraSessions: [StoredSession] = []
for name in extras {
    let context = try plugin.emptyServerContext()
    _ = try await context.run { try await plugin.signIn(username: name, password: password, options: nil) }
    if let session = await context.session.current { extraSessions.append(session) }
}
let exchange = try plugin.sessionRefresh()
let exchangeStart = cpuSeconds()
for session in extraSessions { _ = try await exchange(session) }
let cpuPerExchange = (cpuSeconds() - exchangeStart) / Double(max(1, extraSessions.count))

// MARK: A call in a context vs the process-wide call

_ = try await plugin.signIn(username: "solo", password: password, options: nil)
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
}
guard let context = await store.context(for: names[0]) else { throw BenchmarkError(description: "no held session for \(names[0])") }
/// The call timings, measured off the main actor (top-level code runs on it, and every await
/// there would hop through the main queue): nanoseconds per call, process-wide, in a context, and
/// entering a context with an empty body.
enum CallTimings {
    nonisolated static func measure(
        _ plugin: LocalAuthPlugin, _ context: AuthServerContext, hub: DefaultHubPlugin, calls: Int, rounds: Int
    ) async throws -> (processWide: [Double], inContext: [Double], entering: [Double], inside: [Double]) {
        var inside: [Double] = []
        var processWide: [Double] = []
        var inContext: [Double] = []
        var entering: [Double] = []
        // Short chunks, alternating which kind goes first, so a noisy neighbour on a shared
        // machine weighs on both alike; the medians of the chunks are compared.
        let chunk = max(100, calls / 20)
        for round in 0..<(rounds * 20) {
            func timePlain() async throws {
                let start = DispatchTime.now().uptimeNanoseconds
                for _ in 0..<chunk { _ = try await plugin.fetchAuthSession(options: nil) }
                processWide.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(chunk))
            }
            func timeContext() async throws {
                let start = DispatchTime.now().uptimeNanoseconds
                for _ in 0..<chunk { _ = try await context.run { try await plugin.fetchAuthSession(options: nil) } }
                inContext.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(chunk))
            }
            if round % 2 == 0 {
                try await timePlain()
                try await timeContext()
            } else {
                try await timeContext()
                try await timePlain()
            }
            var start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<chunk { await context.run { _ = AuthServerContext.current } }
            entering.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(chunk))
            start = DispatchTime.now().uptimeNanoseconds
            try await context.run { for _ in 0..<chunk { _ = try await plugin.fetchAuthSession(options: nil) } }
            inside.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(chunk))
            await hub.flush()
        }
        return (processWide, inContext, entering, inside)
    }
}
// The store's timer keeps refreshing every session (10,000 tokens of 60 s: hundreds of refreshes
// a second), which would weigh on whichever call it meets: it stops first, the context's session
// stays usable.
let peakBeforeShutdown = await store.peakConcurrentRefreshes
await store.shutdown()
let (processWide, inContext, entering, inside) = try await CallTimings.measure(plugin, context, hub: hub, calls: callCount, rounds: rounds)
let overhead = median(inContext) - median(processWide)

// MARK: Report

print("")
report(
    "memory per held session beyond tokens", "\(Int(perSession)) B", baseline: "\(Int(bareSession)) B (bare)", ratio: perSession / bareSession,
    goal: "≤ 8192 B", pass: perSession <= 8192)
report(
    "CPU per timer refresh", String(format: "%.1f µs", cpuPerRefresh * 1e6), baseline: String(format: "%.1f µs", cpuPerExchange * 1e6),
    ratio: cpuPerRefresh / cpuPerExchange, goal: "-", pass: nil)
report(
    "p99 refresh lateness vs token expiry", String(format: "%.3f s", percentile(lateness, 0.99)), baseline: String(format: "%.0f s spread", spread),
    ratio: percentile(lateness, 0.99), goal: "< 1 s", pass: percentile(lateness, 0.99) < 1 && failed == 0 && firstRecords.count == sessionCount)
report(
    "p99 timer lateness vs its due time", String(format: "%.3f s", percentile(timerLateness, 0.99)), baseline: "0 s",
    ratio: percentile(timerLateness, 0.99), goal: "-", pass: nil)
report(
    "peak concurrent refreshes", "\(peakBeforeShutdown)", baseline: "cap \(cap)", ratio: Double(peakBeforeShutdown) / Double(cap), goal: "≤ cap",
    pass: peakBeforeShutdown <= cap)
report(
    "call in a context (fetchAuthSession)", String(format: "%.0f ns", median(inContext)), baseline: String(format: "%.0f ns", median(processWide)),
    ratio: median(inContext) / median(processWide), goal: "+< 1 µs", pass: overhead < 1000)
report(
    "call in a context entered once", String(format: "%.0f ns", median(inside)), baseline: String(format: "%.0f ns", median(processWide)),
    ratio: median(inside) / median(processWide), goal: "-", pass: nil)
report(
    "entering a context (run, empty body)", String(format: "%.0f ns", median(entering)), baseline: "-", ratio: median(entering) / median(processWide),
    goal: "-", pass: nil)
if let moto = motoFigures {
    report(
        "moto: memory per held session beyond tokens", "\(Int(moto.perSession)) B", baseline: "\(Int(perSession)) B (local)",
        ratio: moto.perSession / perSession, goal: "≤ 8192 B", pass: moto.perSession <= 8192)
    report(
        "moto: CPU per timer refresh (client)", String(format: "%.1f µs", moto.cpuPerRefresh * 1e6),
        baseline: String(format: "%.1f µs", cpuPerRefresh * 1e6), ratio: moto.cpuPerRefresh / cpuPerRefresh, goal: "-", pass: nil)
    report(
        "moto: p99 refresh end vs its due time", String(format: "%.3f s", moto.p99DueLateness), baseline: "0 s", ratio: moto.p99DueLateness,
        goal: "< 1 s", pass: moto.p99DueLateness < 1 && moto.failed == 0 && moto.refreshed == moto.sessions)
    report(
        "moto: peak concurrent refreshes", "\(moto.peak)", baseline: "cap \(cap)", ratio: Double(moto.peak) / Double(cap), goal: "≤ cap",
        pass: moto.peak <= cap)
    print("")
    print(
        "  moto: \(moto.refreshed) of \(moto.sessions) refreshed (\(moto.failed) failed) in \(String(format: "%.1f", moto.seconds)) s; tokens \(moto.tokenBytes) B per session (moto answers a few hundred requests a second, so it is no server benchmark)"
    )
} else {
    print("")
}
print(
    "  refreshed \(firstRecords.count) of \(sessionCount) sessions (\(failed) failed, \(refreshesDone) refreshes in all) in \(String(format: "%.1f", refreshSeconds)) s; expiries spread over \(String(format: "%.0f", spread)) s"
)
print("  idle CPU \(String(format: "%.2f", idleRate * 100)) % of a core, taken off the refresh window's CPU")
print(
    "  context overhead \(String(format: "%.0f", overhead)) ns per call (medians of \(processWide.count) alternating chunks of \(max(100, callCount / 20)) calls)"
)
_ = bare.count

await plugin.reset()
await hub.reset()
try loop.shutdown()
