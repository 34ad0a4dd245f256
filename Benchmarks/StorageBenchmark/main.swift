import AWSPluginsCore
import AWSS3StoragePlugin
import Amplify
import AmplifyEventLoop
import AmplifyTestKit
import BenchmarkReport
import Foundation
import LocalStoragePlugin

#if canImport(Glibc)
    import Glibc
#endif

// Storage benchmark: the local plugin's upload (uploadFile) and download (downloadFile)
// throughput for one large file, next to `cp` of the same file on the same disk (its limit); and
// the S3 plugin's client CPU time per MiB up and down against moto_server, next to the curl tool
// (`--aws-sigv4`) against the same server, in the same run.
//   swift run -c release StorageBenchmark [--quick] [--json] [--s3-only]

var report = BenchmarkReport("StorageBenchmark")
let quick = CommandLine.arguments.contains("--quick")
// `--memory-check N`: upload and download an N MiB file once and print the resident memory
// growth (the local plugin's tests run it in a process of its own).
let memoryCheck = CommandLine.arguments.firstIndex(of: "--memory-check").flatMap {
    $0 + 1 < CommandLine.arguments.count ? Int(CommandLine.arguments[$0 + 1]) : nil
}
// `--s3-only`: the S3 rows alone (for profiling the client).
let s3Only = CommandLine.arguments.contains("--s3-only")
let mebibytes = memoryCheck ?? (s3Only ? 1 : quick ? 64 : 1024)
let rounds = quick ? 1 : 3

func seconds(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func shell(_ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storage-bench-\(UUID().uuidString)").path
try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: folder) }
let source = folder + "/source.bin"
_ = FileManager.default.createFile(atPath: source, contents: nil)
let writer = try FileHandle(forWritingTo: URL(fileURLWithPath: source))
var block = [UInt8](repeating: 0, count: 1 << 20)
for index in 0..<mebibytes {
    for offset in stride(from: 0, to: block.count, by: 4096) { block[offset] = UInt8(truncatingIfNeeded: index &+ offset) }
    try writer.write(contentsOf: block)
}
try writer.close()

let loop = try EventLoop(name: "storage-bench")
let plugin = LocalStoragePlugin(loop: loop, identityId: { "bench" })
try plugin.configure(using: ["directory": .string(folder + "/store")] as JSONValue)

/// The process's resident memory in bytes, from /proc/self/statm.
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
}

if memoryCheck != nil {
    let before = residentBytes()
    _ = try await plugin.uploadFile(path: .fromString("public/memory.bin"), local: URL(fileURLWithPath: source), options: nil).value
    try await plugin.downloadFile(path: .fromString("public/memory.bin"), local: URL(fileURLWithPath: folder + "/memory-back.bin"), options: nil)
        .value
    let size = (try FileManager.default.attributesOfItem(atPath: folder + "/memory-back.bin")[.size] as? Int) ?? 0
    guard size == mebibytes << 20 else { throw CocoaError(.fileReadCorruptFile) }
    print("resident growth bytes: \(residentBytes() - before)")
    try loop.shutdown()
    try? FileManager.default.removeItem(atPath: folder)
    exit(0)
}

var results: [String: [Double]] = [:]
for round in 0..<(s3Only ? 0 : rounds) {
    results["cp", default: []].append(
        try await seconds {
            try shell(["cp", source, folder + "/copy-\(round).bin"])
            try shell(["sync", "-f", folder + "/copy-\(round).bin"])
        })
    try? FileManager.default.removeItem(atPath: folder + "/copy-\(round).bin")
    results["upload", default: []].append(
        try await seconds {
            _ = try await plugin.uploadFile(path: .fromString("public/big-\(round).bin"), local: URL(fileURLWithPath: source), options: nil).value
        })
    results["download", default: []].append(
        try await seconds {
            try await plugin.downloadFile(
                path: .fromString("public/big-\(round).bin"), local: URL(fileURLWithPath: folder + "/back-\(round).bin"), options: nil
            ).value
        })
    try? FileManager.default.removeItem(atPath: folder + "/back-\(round).bin")
    _ = try await plugin.remove(path: .fromString("public/big-\(round).bin"), options: nil)
}
try loop.shutdown()

// S3 against moto_server: client CPU per MiB, ours and the curl tool's.
func cpuSeconds(_ who: Int32) -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(who), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

let s3Mebibytes = quick ? 32 : 128
let s3Source = folder + "/s3-source.bin"
try Data(count: 0).write(to: URL(fileURLWithPath: s3Source))
let s3Writer = try FileHandle(forWritingTo: URL(fileURLWithPath: s3Source))
for _ in 0..<s3Mebibytes { try s3Writer.write(contentsOf: block) }
try s3Writer.close()
let moto = try await MotoServer.start()
defer { moto.stop() }
try moto.seed(["buckets": ["bench-bucket"]])
let s3Loop = try EventLoop(name: "s3-bench")
let s3 = AWSS3StoragePlugin(loop: s3Loop, credentials: StaticCredentialsProvider(AWSCredentials(accessKeyId: "testing", secretAccessKey: "testing")))
try s3.configure(using: ["bucket": "bench-bucket", "region": .string(moto.region), "endpoint": .string(moto.endpoint.absoluteString)] as JSONValue)
// The same plugin with the multipart threshold above the file's size: one PUT, the transfer the
// curl tool makes.
let s3SinglePut = AWSS3StoragePlugin(
    loop: s3Loop, credentials: StaticCredentialsProvider(AWSCredentials(accessKeyId: "testing", secretAccessKey: "testing")))
try s3SinglePut.configure(
    using: [
        "bucket": "bench-bucket", "region": .string(moto.region), "endpoint": .string(moto.endpoint.absoluteString),
        "multipartThresholdBytes": .number(Double(s3Mebibytes << 21)),
    ] as JSONValue)
let sigv4 = ["--aws-sigv4", "aws:amz:\(moto.region):s3", "--user", "testing:testing"]
for round in 0..<rounds {
    let start = cpuSeconds(RUSAGE_SELF.rawValue)
    _ = try await s3.uploadFile(path: .fromString("ours-\(round).bin"), local: URL(fileURLWithPath: s3Source), options: nil).value
    results["s3 ours up", default: []].append(cpuSeconds(RUSAGE_SELF.rawValue) - start)
    let singleStart = cpuSeconds(RUSAGE_SELF.rawValue)
    _ = try await s3SinglePut.uploadFile(path: .fromString("single-\(round).bin"), local: URL(fileURLWithPath: s3Source), options: nil).value
    results["s3 ours single up", default: []].append(cpuSeconds(RUSAGE_SELF.rawValue) - singleStart)
    let middle = cpuSeconds(RUSAGE_SELF.rawValue)
    try await s3.downloadFile(path: .fromString("ours-\(round).bin"), local: URL(fileURLWithPath: folder + "/s3-back.bin"), options: nil).value
    results["s3 ours down", default: []].append(cpuSeconds(RUSAGE_SELF.rawValue) - middle)
    let curlStart = cpuSeconds(RUSAGE_CHILDREN.rawValue)
    try shell(["curl", "-s", "-f"] + sigv4 + ["-T", s3Source, "\(moto.endpoint.absoluteString)/bench-bucket/curl-\(round).bin"])
    let curlMiddle = cpuSeconds(RUSAGE_CHILDREN.rawValue)
    try shell(["curl", "-s", "-f"] + sigv4 + ["-o", folder + "/s3-curl-back.bin", "\(moto.endpoint.absoluteString)/bench-bucket/curl-\(round).bin"])
    results["s3 curl up", default: []].append(curlMiddle - curlStart)
    results["s3 curl down", default: []].append(cpuSeconds(RUSAGE_CHILDREN.rawValue) - curlMiddle)
    let curlSize = (try FileManager.default.attributesOfItem(atPath: folder + "/s3-curl-back.bin")[.size] as? Int) ?? 0
    let oursSize = (try FileManager.default.attributesOfItem(atPath: folder + "/s3-back.bin")[.size] as? Int) ?? 0
    guard curlSize == s3Mebibytes << 20, oursSize == s3Mebibytes << 20 else { throw CocoaError(.fileReadCorruptFile) }
}
await s3.reset()
await s3SinglePut.reset()
try s3Loop.shutdown()

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
let cp = Double(mebibytes) / median(results["cp"] ?? [1])
print(
    "Storage benchmark (\(quick ? "quick" : "full") run, \(ProcessInfo.processInfo.activeProcessorCount) cores, release build, \(mebibytes) MiB file, medians of \(rounds))"
)
var localRatios: [String: Double] = [:]
if !s3Only {
    print("cp + sync (the disk's limit)".padding(toLength: 44, withPad: " ", startingAt: 0) + String(format: "%8.1f MiB/s", cp))
    for (label, key) in [("local plugin uploadFile (synced, renamed)", "upload"), ("local plugin downloadFile (synced, renamed)", "download")] {
        let rate = Double(mebibytes) / median(results[key] ?? [1])
        print(label.padding(toLength: 44, withPad: " ", startingAt: 0) + String(format: "%8.1f MiB/s   %5.2f× cp", rate, rate / cp))
        report.figure(label, rate, unit: "MiB/s", limit: cp, limitName: "cp + sync")
        localRatios[key] = rate / cp
    }
}
print("")
print("S3 plugin against moto_server, \(s3Mebibytes) MiB, client CPU (user + system) per MiB:")
for (label, ours, curl) in [
    ("upload (multipart, 8 MiB parts, 4 at once)", "s3 ours up", "s3 curl up"),
    ("upload as one PUT (as the curl tool)", "s3 ours single up", "s3 curl up"),
    ("download to a file", "s3 ours down", "s3 curl down"),
] {
    let oursPerMiB = median(results[ours] ?? [0]) * 1000 / Double(s3Mebibytes)
    let curlPerMiB = median(results[curl] ?? [0]) * 1000 / Double(s3Mebibytes)
    print(
        label.padding(toLength: 44, withPad: " ", startingAt: 0)
            + String(format: "ours %6.2f ms/MiB   curl tool %6.2f ms/MiB   %5.2f×", oursPerMiB, curlPerMiB, oursPerMiB / max(curlPerMiB, 1e-9)))
    report.figure("S3 " + label + ", client CPU", oursPerMiB, unit: "ms/MiB", limit: curlPerMiB, limitName: "curl tool", higherIsBetter: false)
}
print("")
if !s3Only {
    report.goal("local uploadFile at least 0.9× cp + sync", (localRatios["upload"] ?? 0) >= 0.9)
    report.goal("local downloadFile at least 0.9× cp + sync", (localRatios["download"] ?? 0) >= 0.9)
}
// The goal compares the same transfer: one PUT and one GET each way (a multipart upload is 18
// requests over four connections; its row shows what that costs on top).
report.goal(
    "S3 client CPU per MiB at most 1.15× the curl tool doing the same transfer, both ways",
    report.figures.filter { $0.name.hasPrefix("S3 ") && !$0.name.contains("multipart") }.allSatisfy { ($0.ratio ?? .infinity) <= 1.15 })
report.finish()
