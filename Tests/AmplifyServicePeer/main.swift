import Amplify
import AmplifyAnalyticsCore
import AmplifyConcurrency
import AmplifyPlugins
import AmplifyServiceLifecycle
import Foundation
import Logging
import ServiceLifecycle

// The process AmplifyServiceLifecycleTests drive: Amplify under a ServiceGroup with a worker that
// records analytics events durably and keeps two uploads in flight, until SIGTERM.
//
//     AmplifyServicePeer FOLDER finish|cancel [--preconfigured] [--max-queued=N]
//
// With --preconfigured, Amplify is configured first and handed over with AmplifyService.configured().
// With --max-queued=N, the analytics queue holds at most N events (the worker then stops recording
// and waits for the signal).
// Prints `ack N` once event N is stored, `uploading K` / `uploaded K` / `upload K failed: ...`,
// `queue full at N (limit L)`, `shutdown {...}` with the AmplifyService's report, and `exited` just
// before exit(0) (`group failed: ...` and exit 1 if the group throws).

/// Writes `line` at once (print would hold it in a buffer while output is a pipe).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Records `work` events with a `seq` metric, each acknowledged once stored, and keeps two uploads
/// of `source` running, until the group shuts down; the uploads it leaves behind are the
/// AmplifyService's to finish or cancel.
struct Worker: Service {
    let source: URL

    func run() async throws {
        let stopping = Locked(false)
        for lane in 0..<2 {
            // Unstructured: uploads outlive the worker, as a server's requests would.
            Task {
                var round = 0
                while !stopping.value {
                    round += 1
                    let key = "public/upload-\(lane)-\(round).bin"
                    say("uploading \(key)")
                    do {
                        _ = try await Amplify.Storage.uploadFile(path: .fromString(key), local: source).value
                        say("uploaded \(key)")
                    } catch {
                        say("upload \(key) failed: \(error)")
                        break
                    }
                }
            }
        }
        guard let engine = (try? Amplify.Analytics.getPlugin(for: "localAnalyticsPlugin") as? any AnalyticsEngineProviding)?.engine else {
            throw CancellationError()
        }
        // However the worker ends, the lanes start no more uploads.
        defer { stopping.withLock { $0 = true } }
        var seq = 0
        while !Task.isShuttingDownGracefully {
            seq += 1
            do {
                try await engine.recordDurably(BasicAnalyticsEvent(name: "work", properties: ["seq": seq]))
            } catch AnalyticsQueueError.full(let limit) {
                // A test process slow to send SIGTERM lets the queue fill (nothing flushes it):
                // stop recording and wait for the signal, as a server shedding load would.
                say("queue full at \(seq) (limit \(limit))")
                try? await gracefulShutdown()
                return
            }
            say("ack \(seq)")
        }
    }
}

func usage() -> Never {
    say("usage: AmplifyServicePeer FOLDER finish|cancel [--preconfigured] [--max-queued=N]")
    exit(2)
}
let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2, ["finish", "cancel"].contains(arguments[1]) else { usage() }
var preconfigured = false
var maxQueued: Int?
for flag in arguments.dropFirst(2) {
    if flag == "--preconfigured" {
        preconfigured = true
    } else if flag.hasPrefix("--max-queued="), let limit = Int(flag.dropFirst("--max-queued=".count)) {
        maxQueued = limit
    } else {
        usage()
    }
}
let folder = arguments[0]
let policyName = arguments[1]
let source = URL(fileURLWithPath: folder).appendingPathComponent("source.bin")
// 64 MiB, so an upload is under way whenever the signal comes.
guard FileManager.default.createFile(atPath: source.path, contents: Data(repeating: 7, count: 64 << 20)) else {
    say("cannot write \(source.path)")
    exit(1)
}
var analytics: [String: JSONValue] = ["directory": .string(folder + "/analytics"), "autoFlushEventsInterval": 0]
if let maxQueued { analytics["maxQueuedEvents"] = .number(Double(maxQueued)) }
let configuration = AmplifyConfiguration(
    analytics: CategoryConfiguration(plugins: ["localAnalyticsPlugin": .object(analytics)]),
    storage: CategoryConfiguration(plugins: ["localStoragePlugin": ["directory": .string(folder + "/storage")]]))
Amplify.registerBuiltInPlugins()
let policy = AmplifyService.ShutdownPolicy(transfers: policyName == "finish" ? .finish(within: .seconds(60)) : .cancel)
let report: @Sendable (AmplifyService.ShutdownReport) -> Void = { report in
    say(
        #"shutdown {"transfersInProgress":\#(report.transfersInProgress),"transfersCancelled":\#(report.transfersCancelled),"analyticsFlushed":\#(report.analyticsFlushed)}"#
    )
}
let amplify: AmplifyService
if preconfigured {
    try Amplify.configure(configuration)
    amplify = AmplifyService.configured(shutdownPolicy: policy, onShutdown: report)
} else {
    amplify = try AmplifyService(configuration: configuration, shutdownPolicy: policy, onShutdown: report)
}
var logger = Logger(label: "amplify-service-peer")
logger.logLevel = .warning
let group = ServiceGroup(services: [amplify, Worker(source: source)], gracefulShutdownSignals: [.sigterm], logger: logger)
do {
    try await group.run()
} catch {
    // An error at top level would end the process with a trap; the test reads this line instead.
    say("group failed: \(error)")
    exit(1)
}
say("exited")
exit(0)
