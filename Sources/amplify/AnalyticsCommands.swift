import AmplifyAnalyticsCore
import AmplifyPlugins
import Foundation

/// `amplify analytics …`: record into the durable queue, flush it, and show its state.
enum AnalyticsCommands {
    static var all: [any CLICommand] {
        [
            ActionCommand(
                path: ["analytics", "record"], summary: "record an event durably", usage: "NAME [KEY=VALUE ...] [--count N] [--progress]",
                details: """
                    Records the event NAME with its properties (numbers become metrics; true/false and text become attributes) \
                    and returns once it is stored in the queue. --count N records N such events with a `seq` metric 1...N; \
                    --progress prints `stored SEQ` as each one is stored. `amplify analytics flush` sends them.
                    """,
                positional: ["NAME"], valueOptions: ["--count"], switchOptions: ["--progress"], acceptsMorePositional: true
            ) { arguments, _ in
                let engine = try engine()
                let name = arguments.positional[0]
                var properties: AnalyticsProperties = [:]
                for pair in arguments.positional.dropFirst() {
                    guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                        throw UsageError("Properties are KEY=VALUE; got '\(pair)'.")
                    }
                    properties[String(pair[..<equals])] = property(String(pair[pair.index(after: equals)...]))
                }
                let countText = arguments.values["--count"] ?? "1"
                guard let count = Int(countText), count >= 1 else { throw UsageError("--count needs a positive number; got '\(countText)'.") }
                for seq in 1...count {
                    var eventProperties = properties
                    if count > 1 { eventProperties["seq"] = seq }
                    try await engine.recordDurably(BasicAnalyticsEvent(name: name, properties: eventProperties))
                    if arguments.switches.contains("--progress") { Output.line("stored \(seq)") }
                }
                let waiting = try await engine.queue.counts().waiting
                return CommandResult(
                    text: "Recorded \(count == 1 ? "'\(name)'" : "\(count) '\(name)' events"); \(waiting) waiting to be sent.",
                    json: ["recorded": .number(Double(count)), "waiting": .number(Double(waiting))])
            },
            ActionCommand(
                path: ["analytics", "flush"], summary: "send what the queue holds", usage: "",
                details: "Sends every waiting event to the plugin's target, in recording order, and prints what happened."
            ) { _, _ in
                let engine = try engine()
                let summary = await engine.flush()
                var text = "Sent \(summary.sent) event(s) to \(try plugin().targetDescription); \(summary.waiting) waiting, \(summary.setAsideTotal) set aside."
                if summary.refused > 0 { text += " \(summary.refused) refused this time (\(summary.setAside) set aside now)." }
                if let reason = summary.notSentReason { text += " Stopped early: \(reason)." }
                return CommandResult(text: text, json: [
                    "sent": .number(Double(summary.sent)), "refused": .number(Double(summary.refused)),
                    "setAside": .number(Double(summary.setAside)), "waiting": .number(Double(summary.waiting)),
                    "setAsideTotal": .number(Double(summary.setAsideTotal)), "notSentReason": summary.notSentReason.map(JSONValue.string) ?? .null,
                ])
            },
            ActionCommand(
                path: ["analytics", "status"], summary: "queued, set aside, last flush", usage: "",
                details: "Prints how many events wait in the queue, how many were set aside after repeated refusals (and why), and when a flush last reached the target."
            ) { _, _ in
                let engine = try engine()
                let counts = try await engine.queue.counts()
                let last = try await engine.queue.lastFlush()
                let asides = try await engine.queue.setAside(limit: 5)
                let lastText = last.map { ISO8601DateFormatter().string(from: $0) } ?? "never"
                var text = "Queued: \(counts.waiting)\nSet aside: \(counts.setAside)\nLast flush: \(lastText)\nTarget: \(try plugin().targetDescription)"
                for (queued, reason) in asides { text += "\n  set aside #\(queued.id) '\(queued.record.name)' after \(queued.attempts) refusals: \(reason)" }
                return CommandResult(text: text, json: [
                    "queued": .number(Double(counts.waiting)), "setAside": .number(Double(counts.setAside)),
                    "lastFlush": last.map { .string(ISO8601DateFormatter().string(from: $0)) } ?? .null,
                ])
            },
        ]
    }

    static func property(_ text: String) -> any AnalyticsPropertyValue {
        if let number = Double(text) { return number }
        if text == "true" { return true }
        if text == "false" { return false }
        return text
    }

    static func plugin() throws -> any AnalyticsEngineProviding {
        for key in ["localAnalyticsPlugin", "awsKinesisAnalyticsPlugin"] {
            if let plugin = try? Amplify.Analytics.getPlugin(for: key) as? any AnalyticsEngineProviding { return plugin }
        }
        throw AnalyticsError.configuration(
            "The configuration has no analytics plugin this tool can drive.",
            "Add an `analytics.plugins.localAnalyticsPlugin` (or `awsKinesisAnalyticsPlugin`) block to the configuration file.")
    }

    static func engine() throws -> AnalyticsEngine {
        guard let engine = try plugin().engine else {
            throw AnalyticsError.configuration("The analytics plugin is not configured.", "Check its block in the configuration file.")
        }
        return engine
    }
}
