import Amplify
import AmplifyEventLoop
import Foundation
import LocalStoragePlugin

// Storage benchmark: the local plugin's upload (uploadFile) and download (downloadFile)
// throughput for one large file, next to `cp` of the same file on the same disk (its limit), in
// the same run. Files are written fresh each round and synced by both (cp then `sync -f`).
//   swift run -c release StorageBenchmark [--quick]

let quick = CommandLine.arguments.contains("--quick")
// `--memory-check N`: upload and download an N MiB file once and print the resident memory
// growth (the local plugin's tests run it in a process of its own).
let memoryCheck = CommandLine.arguments.firstIndex(of: "--memory-check").flatMap {
    $0 + 1 < CommandLine.arguments.count ? Int(CommandLine.arguments[$0 + 1]) : nil
}
let mebibytes = memoryCheck ?? (quick ? 64 : 1024)
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
    try await plugin.downloadFile(path: .fromString("public/memory.bin"), local: URL(fileURLWithPath: folder + "/memory-back.bin"), options: nil).value
    let size = (try FileManager.default.attributesOfItem(atPath: folder + "/memory-back.bin")[.size] as? Int) ?? 0
    guard size == mebibytes << 20 else { throw CocoaError(.fileReadCorruptFile) }
    print("resident growth bytes: \(residentBytes() - before)")
    try loop.shutdown()
    try? FileManager.default.removeItem(atPath: folder)
    exit(0)
}

var results: [String: [Double]] = [:]
for round in 0..<rounds {
    results["cp", default: []].append(try await seconds {
        try shell(["cp", source, folder + "/copy-\(round).bin"])
        try shell(["sync", "-f", folder + "/copy-\(round).bin"])
    })
    try? FileManager.default.removeItem(atPath: folder + "/copy-\(round).bin")
    results["upload", default: []].append(try await seconds {
        _ = try await plugin.uploadFile(path: .fromString("public/big-\(round).bin"), local: URL(fileURLWithPath: source), options: nil).value
    })
    results["download", default: []].append(try await seconds {
        try await plugin.downloadFile(path: .fromString("public/big-\(round).bin"), local: URL(fileURLWithPath: folder + "/back-\(round).bin"), options: nil).value
    })
    try? FileManager.default.removeItem(atPath: folder + "/back-\(round).bin")
    _ = try await plugin.remove(path: .fromString("public/big-\(round).bin"), options: nil)
}
try loop.shutdown()

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
let cp = Double(mebibytes) / median(results["cp"] ?? [1])
print("Storage benchmark (\(quick ? "quick" : "full") run, \(ProcessInfo.processInfo.activeProcessorCount) cores, release build, \(mebibytes) MiB file, medians of \(rounds))")
print("cp + sync (the disk's limit)".padding(toLength: 44, withPad: " ", startingAt: 0) + String(format: "%8.1f MiB/s", cp))
for (label, key) in [("local plugin uploadFile (synced, renamed)", "upload"), ("local plugin downloadFile (synced, renamed)", "download")] {
    let rate = Double(mebibytes) / median(results[key] ?? [1])
    print(label.padding(toLength: 44, withPad: " ", startingAt: 0) + String(format: "%8.1f MiB/s   %5.2f× cp", rate, rate / cp))
}
