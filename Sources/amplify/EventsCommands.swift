import AWSAPIPlugin
import AWSPluginsCore
import AmplifyPlugins
import ArgumentParser
import Foundation

/// `amplify events …`: AppSync Events channels through the configured API plugin.
struct EventsGroup: CommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "events", abstract: "AppSync Events channels: subscribe and publish.",
        subcommands: [EventsCommands.Subscribe.self, EventsCommands.Publish.self])
}

/// What the Events commands share: the channel, the API and the auth mode.
struct EventsOptionGroup: ParsableArguments {
    @Argument(help: ArgumentHelp("The channel: /namespace/a/b (subscribe may end in /*).", valueName: "channel")) var channel: String
    @Option(help: ArgumentHelp("The Events API's name in the configuration (default: the only one).", valueName: "name")) var api: String?
    @Option(
        name: .customLong("auth-mode"),
        help: ArgumentHelp("API_KEY, AWS_IAM, AMAZON_COGNITO_USER_POOLS, OPENID_CONNECT or AWS_LAMBDA (default: the API's).", valueName: "mode"))
    var authMode: String?

    func validate() throws {
        _ = try APICommands.mode(authMode)
    }

    func options() throws -> EventsOptions { EventsOptions(authMode: try APICommands.mode(authMode)) }
}

/// The `amplify events` commands.
enum EventsCommands {
    struct Subscribe: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "subscribe", abstract: "Print a channel's events as JSON lines.",
            discussion: """
                Prints one JSON line per connection state ({"connection": "connected"}) and per event ({"event": …}) \
                until --count events arrived, --timeout seconds passed, or Ctrl-C (which unsubscribes cleanly; exit 0).
                """)
        static var needsConfiguration: Bool { false }
        @OptionGroup var global: GlobalOptions
        @OptionGroup var events: EventsOptionGroup
        @OptionGroup var limits: StreamLimits

        func execute() async throws -> CommandResult {
            try APICommands.configure(global)
            let options = try events.options()
            let channel = try await Amplify.API.events.connect(events.channel, options: options, apiName: events.api)
            let sequence = channel.subscribe(options: options)
            let stop = StopSignals(timeout: limits.timeout) { sequence.cancel() }
            defer { stop.restore() }
            var received = 0
            for try await event in sequence {
                switch event {
                case .connection(let state):
                    Output.line((["connection": .string(state.rawValue)] as JSONValue).compactText)
                case .data(let value):
                    Output.line((["event": value] as JSONValue).compactText)
                    received += 1
                    if let count = limits.count, received >= count { sequence.cancel() }
                }
            }
            await channel.close()
            return CommandResult(text: "", json: .null)
        }
    }

    struct Publish: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "publish", abstract: "Publish events to a channel.",
            discussion: """
                Each EVENT is JSON (a string needs its quotes: '"hello"'), @FILE, or - for one event per line of standard \
                input. They go five to a message (AppSync's limit), over the WebSocket, or with --http as POST /event. \
                Prints how many AppSync accepted; any it refused go to stderr and exit 1.
                """)
        static var needsConfiguration: Bool { false }
        @OptionGroup var global: GlobalOptions
        @OptionGroup var events: EventsOptionGroup
        @Argument(help: ArgumentHelp("The events: JSON, @FILE, or - (JSON lines on stdin).", valueName: "event")) var values: [String]
        @Flag(help: "Publish over HTTP (POST /event) instead of the WebSocket.") var http = false

        func validate() throws {
            if values.isEmpty { throw ValidationError("Give at least one event: amplify events publish /default/chat '{\"text\": \"hi\"}'.") }
        }

        /// The events, parsed.
        /// - Throws: ``UsageError`` naming the argument that is not JSON.
        func parsed() throws -> [JSONValue] {
            var events: [JSONValue] = []
            for value in values {
                let lines: [String] =
                    value == "-"
                    ? APICommands.standardInput().split(whereSeparator: \.isNewline).map(String.init).filter {
                        !$0.trimmingCharacters(in: .whitespaces).isEmpty
                    }
                    : [try APICommands.text(value, what: "the event")]
                for line in lines {
                    guard let event = try? JSONValue(parsing: Array(line.utf8)) else {
                        throw UsageError("'\(line.prefix(80))' is not JSON. Quote a string event as JSON: '\"hello\"'.")
                    }
                    events.append(event)
                }
            }
            return events
        }

        func execute() async throws -> CommandResult {
            let all = try parsed()
            guard !all.isEmpty else { throw UsageError("No events to publish: standard input held none.") }
            try APICommands.configure(global)
            let options = try events.options()
            let channel = http ? nil : try await Amplify.API.events.connect(events.channel, options: options, apiName: events.api)
            var successful = 0
            var failed: [JSONValue] = []
            var start = 0
            while start < all.count {
                let batch = Array(all[start..<min(start + 5, all.count)])
                let result: EventsPublishResult
                do {
                    if let channel {
                        result = try await channel.publish(events: batch, options: options)
                    } else {
                        result = try await Amplify.API.events.post(events.channel, events: batch, options: options, apiName: events.api)
                    }
                } catch {
                    await channel?.close()
                    if successful > 0 { Output.error("AppSync accepted \(successful) of \(all.count) event(s) before this failure.") }
                    throw error
                }
                successful += result.successful.count
                failed += result.failed.map { ["index": .number(Double(start + $0.index)), "message": .string($0.message ?? "")] }
                start += 5
            }
            await channel?.close()
            guard failed.isEmpty else {
                throw APIError.operationError(
                    "AppSync refused \(failed.count) of \(all.count) event(s): \(JSONValue.array(failed).compactText)",
                    "Check the events against the channel namespace's handlers and limits.")
            }
            return CommandResult(text: "published \(successful) event(s) to \(events.channel)", json: ["successful": .number(Double(successful))])
        }
    }
}
