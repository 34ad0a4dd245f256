import AmplifyAuthCore
import AmplifyConcurrency
import AmplifyPlugins
import Foundation

/// `amplify hub listen`: prints one JSON line per Hub event as it arrives.
enum HubListenCommand {
    static var command: ActionCommand {
        ActionCommand(
            path: ["hub", "listen"], summary: "print Hub events as JSON lines", usage: "[--channel NAME] [--count N] [--timeout S]",
            details: """
                Configures Amplify (if a configuration file is found), then prints one JSON line per event on \
                the channel (default: every built-in channel), as it arrives, until N events were printed or \
                S seconds passed. Payload data is summarised (a user's name and id, a call's success or error); \
                tokens, codes and passwords are never printed.
                """,
            valueOptions: ["--channel", "--count", "--timeout"], needsConfiguration: false
        ) { arguments, options in
            let count = try arguments.values["--count"].map { try positiveInt($0, "--count") }
            let timeout = try arguments.values["--timeout"].map { try positiveInt($0, "--timeout") }
            let channels = arguments.values["--channel"].map { [HubChannel(name: $0)] } ?? HubChannel.amplifyChannels
            let printed = Locked(0)
            let done = AsyncStream<Void>.makeStream()
            let tokens = channels.map { channel in
                Amplify.Hub.listen(to: channel) { payload in
                    Output.line(line(channel, payload))
                    let total = printed.withLock { value -> Int in
                        value += 1
                        return value
                    }
                    if let count, total >= count { done.continuation.yield() }
                }
            }
            // Listen first, so the events of configuring (Amplify.configured, a restored session's
            // expiry) are printed too.
            if let configuration = try? CLIConfiguration.load(options) { try Amplify.configure(configuration) }
            if let timeout {
                Task {
                    try? await Task.sleep(for: .seconds(timeout))
                    done.continuation.yield()
                }
            }
            var iterator = done.stream.makeAsyncIterator()
            _ = await iterator.next()
            for token in tokens { Amplify.Hub.removeListener(token) }
            return CommandResult(text: "", json: .null)
        }
    }

    private static func positiveInt(_ text: String, _ option: String) throws -> Int {
        guard let value = Int(text), value > 0 else { throw UsageError("\(option) needs a positive whole number; got '\(text)'.") }
        return value
    }

    static func line(_ channel: HubChannel, _ payload: HubPayload) -> String {
        let object: JSONValue = ["channel": .string(channel.name), "event": .string(payload.eventName), "data": summary(payload.data)]
        return object.compactText
    }

    /// A payload's data without secrets: strings and users as they are, results as ok/error.
    static func summary(_ data: (any Sendable)?) -> JSONValue {
        switch data {
        case nil: return .null
        case let user as SignedInUser: return ["username": .string(user.username), "userId": .string(user.userId)]
        case let text as String: return .string(text)
        case let number as Int: return .number(Double(number))
        case let error as any AmplifyError: return ["error": .string(error.errorDescription)]
        case let some?:
            let described = String(describing: some)
            if described.hasPrefix("failure(") {
                return ["ok": false, "error": .string(failureText(some) ?? "")]
            }
            return ["ok": .boolean(described.hasPrefix("success(")), "type": .string(String(describing: type(of: some)))]
        }
    }

    private static func failureText(_ value: any Sendable) -> String? {
        Mirror(reflecting: value).children.first.flatMap { ($0.value as? any AmplifyError)?.errorDescription }
    }
}
