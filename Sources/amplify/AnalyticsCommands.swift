import AmplifyAnalyticsCore
import AmplifyPlugins
import ArgumentParser
import Foundation

/// `amplify analytics …`: record into the durable queue, flush it, and show its state.
struct AnalyticsGroup: CommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "analytics", abstract: "The durable analytics queue.",
        subcommands: [AnalyticsCommands.Record.self, AnalyticsCommands.Flush.self, AnalyticsCommands.Status.self])
}

/// The `amplify analytics` commands.
enum AnalyticsCommands {
    struct Record: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "record", abstract: "Record an event durably.",
            discussion: """
                Records the event NAME with its properties (numbers become metrics; true/false and text become attributes) \
                and returns once it is stored in the queue. --count N records N such events with a `seq` metric 1...N; \
                --progress prints `stored SEQ` as each one is stored. `amplify analytics flush` sends them.
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The event's name.", valueName: "name")) var name: String
        @Argument(help: ArgumentHelp("Properties of the event.", valueName: "key=value")) var properties: [String] = []
        @Option(help: ArgumentHelp("Record this many events, each with a `seq` metric.", valueName: "number")) var count = "1"
        @Flag(help: "Print `stored SEQ` as each event is stored.") var progress = false

        func validate() throws {
            for pair in properties {
                guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                    throw ValidationError("Properties are KEY=VALUE; got '\(pair)'.")
                }
            }
            guard let number = Int(count), number >= 1 else { throw ValidationError("--count needs a positive number; got '\(count)'.") }
        }

        func execute() async throws -> CommandResult {
            let engine = try engine()
            var eventProperties: AnalyticsProperties = [:]
            for pair in properties {
                guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                    throw UsageError("Properties are KEY=VALUE; got '\(pair)'.")
                }
                eventProperties[String(pair[..<equals])] = property(String(pair[pair.index(after: equals)...]))
            }
            guard let total = Int(count), total >= 1 else { throw UsageError("--count needs a positive number; got '\(count)'.") }
            for seq in 1...total {
                var recorded = eventProperties
                if total > 1 { recorded["seq"] = seq }
                try await engine.recordDurably(BasicAnalyticsEvent(name: name, properties: recorded))
                if progress { Output.line("stored \(seq)") }
            }
            let waiting = try await engine.queue.counts().waiting
            return CommandResult(
                text: "Recorded \(total == 1 ? "'\(name)'" : "\(total) '\(name)' events"); \(waiting) waiting to be sent.",
                json: ["recorded": .number(Double(total)), "waiting": .number(Double(waiting))])
        }
    }

    struct Flush: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "flush", abstract: "Send what the queue holds.",
            discussion: "Sends every waiting event to the plugin's target, in recording order, and prints what happened.")
        @OptionGroup var global: GlobalOptions

        func execute() async throws -> CommandResult {
            let engine = try engine()
            let summary = await engine.flush()
            var text =
                "Sent \(summary.sent) event(s) to \(try plugin().targetDescription); \(summary.waiting) waiting, \(summary.setAsideTotal) set aside."
            if summary.refused > 0 { text += " \(summary.refused) refused this time (\(summary.setAside) set aside now)." }
            if let reason = summary.notSentReason { text += " Stopped early: \(reason)." }
            return CommandResult(
                text: text,
                json: [
                    "sent": .number(Double(summary.sent)), "refused": .number(Double(summary.refused)),
                    "setAside": .number(Double(summary.setAside)), "waiting": .number(Double(summary.waiting)),
                    "setAsideTotal": .number(Double(summary.setAsideTotal)), "notSentReason": summary.notSentReason.map(JSONValue.string) ?? .null,
                ])
        }
    }

    struct Status: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Queued, set aside, last flush.",
            discussion:
                "Prints how many events wait in the queue, how many were set aside after repeated refusals (and why), and when a flush last reached the target."
        )
        @OptionGroup var global: GlobalOptions

        func execute() async throws -> CommandResult {
            let engine = try engine()
            let counts = try await engine.queue.counts()
            let last = try await engine.queue.lastFlush()
            let asides = try await engine.queue.setAside(limit: 5)
            let lastText = last.map { ISO8601DateFormatter().string(from: $0) } ?? "never"
            var text = "Queued: \(counts.waiting)\nSet aside: \(counts.setAside)\nLast flush: \(lastText)\nTarget: \(try plugin().targetDescription)"
            for (queued, reason) in asides {
                text += "\n  set aside #\(queued.id) '\(queued.record.name)' after \(queued.attempts) refusals: \(reason)"
            }
            return CommandResult(
                text: text,
                json: [
                    "queued": .number(Double(counts.waiting)), "setAside": .number(Double(counts.setAside)),
                    "lastFlush": last.map { .string(ISO8601DateFormatter().string(from: $0)) } ?? .null,
                ])
        }
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
