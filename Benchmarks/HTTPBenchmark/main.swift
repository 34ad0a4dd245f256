import AWSPluginsCore
import Amplify
import AmplifyEventLoop
import AmplifyTestKit
import BenchmarkReport
import CoreMetrics
import Foundation
import MetricsTestKit

#if canImport(Glibc)
    import Glibc
#endif

// HTTP client benchmark: client CPU time (user + system) per MiB uploaded, per MiB downloaded
// and per request, ours (libcurl on the libuv loop) next to curl's command-line tool against the
// same local server in the same run; plus our SigV4-signed S3-style PUT. Run with
//   swift run -c release HTTPBenchmark            (about a minute)
//   swift run -c release HTTPBenchmark --quick    (a smoke run)
//   swift run -c release HTTPBenchmark --requests-only   (the small GETs alone, for profiling)

// `--test-metrics`: swift-metrics' TestMetrics backend is bootstrapped first, so the run measures
// what the client's metrics cost with a backend (without it, none is and the client does no
// metric work).
let testMetrics = CommandLine.arguments.contains("--test-metrics") ? TestMetrics() : nil
if let testMetrics { MetricsSystem.bootstrap(testMetrics) }
var report = BenchmarkReport("HTTPBenchmark")
let quick = CommandLine.arguments.contains("--quick")
// `--memory-check N`: send an N MiB file up and an N MiB response down to a file once and print
// the resident memory growth (the HTTP client's tests run it in a process of its own).
let memoryCheck = CommandLine.arguments.firstIndex(of: "--memory-check").flatMap {
    $0 + 1 < CommandLine.arguments.count ? Int(CommandLine.arguments[$0 + 1]) : nil
}
let mebibytes = memoryCheck ?? (quick ? 32 : 256)
let requests = quick ? 200 : 2_000
let rounds = quick ? 1 : 3

/// CPU seconds (user + system) of this process, or of its reaped children.
func cpuSeconds(_ who: Int32) -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(who), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func ownCPU<T>(_ body: () async throws -> T) async rethrows -> Double {
    let start = cpuSeconds(RUSAGE_SELF.rawValue)
    _ = try await body()
    return cpuSeconds(RUSAGE_SELF.rawValue) - start
}

/// Runs the curl tool with `arguments` and returns the CPU time it used.
func curlCPU(_ arguments: [String]) throws -> Double {
    let start = cpuSeconds(RUSAGE_CHILDREN.rawValue)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["curl", "-s", "-f"] + arguments
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw BenchmarkError("curl \(arguments) exited \(process.terminationStatus)") }
    return cpuSeconds(RUSAGE_CHILDREN.rawValue) - start
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// Runs `body` in a task on the global executor, as a server's request handler runs: top-level
/// code is on the main actor, and every call from there would pay two more thread hand-offs
/// (main actor → pool → main actor) that are the caller's, not the client's.
func inServerTask<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await Task.detached(operation: body).value
}

/// Runs `body` in a task whose executor preference is the client's loop: the client's calls
/// start and resume on the loop thread, without waking another thread.
func onLoopExecutor<T: Sendable>(_ loop: EventLoop, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await Task.detached { try await withTaskExecutorPreference(loop.taskExecutor, operation: body) }.value
}

// The test kit's local server (it reads and hashes uploads, streams `/bytes?n=`).
let server = try await LocalHTTPServer.start()
defer { server.stop() }
let loop = try EventLoop(name: "http-bench")
let http = try HTTPClient(loop: loop)
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("http-bench-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let source = folder.appendingPathComponent("upload.bin").path
let target = folder.appendingPathComponent("download.bin").path
let block = [UInt8]((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
_ = FileManager.default.createFile(atPath: source, contents: nil)
let writer = try FileHandle(forWritingTo: URL(fileURLWithPath: source))
for _ in 0..<mebibytes { try writer.write(contentsOf: block) }
try writer.close()

let bytes = mebibytes << 20
let uploadURL = server.url("/echo")
let downloadURL = server.url("/bytes?n=\(bytes)")
let smallURL = server.url("/bytes?n=64")
let signer = AWSRESTClient(
    http: http, endpoint: server.url(""), region: "us-east-1",
    credentials: StaticCredentialsProvider(AWSCredentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret")))
let smallBody = [UInt8](repeating: 7, count: 1024)
let smallFile = folder.appendingPathComponent("small.bin").path
_ = FileManager.default.createFile(atPath: smallFile, contents: Data(smallBody))

if memoryCheck != nil {
    func resident() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }
    let before = resident()
    let up = try await http.send(HTTPRequest(method: "PUT", url: uploadURL, body: .file(source)))
    let down = try await http.send(HTTPRequest(url: downloadURL, responseFile: target))
    let size = (try FileManager.default.attributesOfItem(atPath: target)[.size] as? Int) ?? 0
    guard up.status == 200, down.status == 200, size == bytes else { throw BenchmarkError("the transfers did not complete") }
    print("resident growth bytes: \(resident() - before)")
    await http.shutdown()
    try loop.shutdown()
    server.stop()
    try? FileManager.default.removeItem(at: folder)
    exit(0)
}

// `--requests-only`: the small GETs alone (from a server task, from the main actor, from the
// loop's executor), then the curl tool's, for profiling.
if CommandLine.arguments.contains("--requests-only") {
    let count = requests * 5
    let ours = try await ownCPU { try await inServerTask { for _ in 0..<count { _ = try await http.send(HTTPRequest(url: smallURL)) } } }
    let main = try await ownCPU { for _ in 0..<count { _ = try await http.send(HTTPRequest(url: smallURL)) } }
    let onLoop = try await ownCPU { try await onLoopExecutor(loop) { for _ in 0..<count { _ = try await http.send(HTTPRequest(url: smallURL)) } } }
    let curl = try curlCPU([smallURL.absoluteString + "&i=[1-\(count)]", "-o", "/dev/null"])
    func µs(_ seconds: Double) -> String { String(format: "%.1f µs", seconds * 1e6 / Double(count)) }
    print(
        "per GET of 64 B: ours \(µs(ours)) from a server task, \(µs(main)) from the main actor, \(µs(onLoop)) on the loop's executor; curl tool \(µs(curl))"
    )
    await http.shutdown()
    try loop.shutdown()
    server.stop()
    try? FileManager.default.removeItem(at: folder)
    exit(0)
}

var results: [String: [Double]] = [:]
for _ in 0..<rounds {
    results["ours upload", default: []].append(
        try await ownCPU {
            try await inServerTask {
                let response = try await http.send(HTTPRequest(method: "PUT", url: uploadURL, body: .file(source)))
                guard response.status == 200 else { throw BenchmarkError("upload answered \(response.status)") }
            }
        })
    results["curl upload", default: []].append(try curlCPU(["-T", source, uploadURL.absoluteString, "-o", "/dev/null"]))
    results["ours download", default: []].append(
        try await ownCPU {
            try await inServerTask {
                let response = try await http.send(HTTPRequest(url: downloadURL, responseFile: target))
                guard response.status == 200 else { throw BenchmarkError("download answered \(response.status)") }
            }
        })
    results["curl download", default: []].append(try curlCPU([downloadURL.absoluteString, "-o", target]))
    results["ours requests", default: []].append(
        try await ownCPU {
            try await inServerTask {
                for _ in 0..<requests { _ = try await http.send(HTTPRequest(url: smallURL)) }
            }
        })
    results["ours requests on the loop", default: []].append(
        try await ownCPU {
            try await onLoopExecutor(loop) {
                for _ in 0..<requests { _ = try await http.send(HTTPRequest(url: smallURL)) }
            }
        })
    results["curl requests", default: []].append(try curlCPU([smallURL.absoluteString + "&i=[1-\(requests)]", "-o", "/dev/null"]))
    results["ours puts", default: []].append(
        try await ownCPU {
            try await inServerTask {
                for _ in 0..<requests {
                    _ = try await http.send(
                        HTTPRequest(method: "PUT", url: uploadURL, headers: [("Content-Type", "application/octet-stream")], body: .bytes(smallBody)))
                }
            }
        })
    results["curl puts", default: []].append(try curlCPU(["-T", smallFile, uploadURL.absoluteString + "?i=[1-\(requests)]", "-o", "/dev/null"]))
    results["ours signed", default: []].append(
        try await ownCPU {
            try await inServerTask {
                for _ in 0..<requests {
                    _ = try await signer.send(
                        AWSRESTRequest(method: "PUT", path: "/echo", headers: [("Content-Type", "application/octet-stream")], body: .bytes(smallBody))
                    )
                }
            }
        })
}
let signingKeys = AWSCredentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret")
for _ in 0..<rounds {
    results["ours signing only", default: []].append(
        await ownCPU {
            let signer = SigV4Signer(credentials: signingKeys, region: "us-east-1", service: "s3")
            for _ in 0..<requests * 10 {
                var request = SignableRequest(
                    method: "PUT", path: "/bucket/photos/cat.jpg", headers: [("Host", "127.0.0.1:9000"), ("Content-Type", "image/jpeg")])
                signer.sign(&request, payload: .bytes(smallBody))
            }
        })
}
await http.shutdown()
try loop.shutdown()

@MainActor func figure(_ name: String) -> Double { median(results[name] ?? [0]) }
@MainActor func row(_ label: String, _ unit: String, _ ours: Double, _ curl: Double?) {
    report.figure(label, ours, unit: unit, limit: curl, limitName: curl == nil ? nil : "curl tool", higherIsBetter: false)
    let curlText = curl.map { String(format: "%10.3f", $0) } ?? "         -"
    let ratioText = curl.map { String(format: "%8.2f×", ours / max($0, 1e-9)) } ?? "        -"
    print(label.padding(toLength: 38, withPad: " ", startingAt: 0) + String(format: "%10.3f", ours) + curlText + ratioText + "  " + unit)
}
print(
    "HTTP client benchmark (\(quick ? "quick" : "full") run, \(ProcessInfo.processInfo.activeProcessorCount) cores, release build, medians of \(rounds)\(CommandLine.arguments.contains("--test-metrics") ? ", TestMetrics backend" : ""))"
)
print("client CPU time (user + system) against a local Python server on 127.0.0.1; lower is better;")
print("ours called from a task on the global executor (as a server's handler), or on the loop's executor")
print("")
print("what".padding(toLength: 38, withPad: " ", startingAt: 0) + "      ours  curl tool  ours÷curl  unit")
row(
    "upload \(mebibytes) MiB from a file", "ms CPU per MiB", figure("ours upload") * 1000 / Double(mebibytes),
    figure("curl upload") * 1000 / Double(mebibytes))
row(
    "download \(mebibytes) MiB to a file", "ms CPU per MiB", figure("ours download") * 1000 / Double(mebibytes),
    figure("curl download") * 1000 / Double(mebibytes))
row(
    "\(requests) GETs of 64 B, one at a time", "µs CPU per request", figure("ours requests") * 1e6 / Double(requests),
    figure("curl requests") * 1e6 / Double(requests))
row(
    "  the same GETs on the loop's executor", "µs CPU per request", figure("ours requests on the loop") * 1e6 / Double(requests),
    figure("curl requests") * 1e6 / Double(requests))
row(
    "\(requests) PUTs of 1 KiB, one at a time", "µs CPU per request", figure("ours puts") * 1e6 / Double(requests),
    figure("curl puts") * 1e6 / Double(requests))
row("\(requests * 10) SigV4 signatures (1 KiB body)", "µs CPU per signature", figure("ours signing only") * 1e6 / Double(requests * 10), nil)
row("\(requests) SigV4-signed PUTs of 1 KiB", "µs CPU per request", figure("ours signed") * 1e6 / Double(requests), nil)
if let testMetrics {
    // What the backend saw, and what one attempt's report costs: the client's own code (a
    // counter and a timer, found in its table) on a backend of its own, timed over many reports.
    let counted = testMetrics.counters.filter { $0.label == AmplifyMetrics.httpRequests }.reduce(Int64(0)) { $0 + $1.totalValue }
    if let report = HTTPMetrics.make(TestMetrics()) {
        let reports = 200_000
        let start = ContinuousClock.now
        for index in 0..<reports { report.attempt(service: "s3", operation: "PutObject", status: "200", nanoseconds: Int64(index)) }
        let elapsed = ContinuousClock.now - start
        let perReport = (Double(elapsed.components.seconds) * 1e18 + Double(elapsed.components.attoseconds)) / 1e9 / Double(reports)
        print("")
        print("TestMetrics counted \(counted) requests; one attempt's report costs " + String(format: "%.0f ns", perReport))
    }
}
print("")
let smallGet = report.figures.first { $0.name.contains("GETs of 64 B") }?.ratio ?? .infinity
report.goal("a small GET at most 1.2× the curl tool's CPU", smallGet <= 1.2)
report.finish()
