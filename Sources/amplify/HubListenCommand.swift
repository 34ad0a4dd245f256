import AmplifyAuthCore
import AmplifyConcurrency
import AmplifyPlugins
import ArgumentParser
import Foundation

/// `amplify hub listen`: prints one JSON line per Hub event as it arrives.
struct HubListenCommand: AmplifyCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen", abstract: "Print Hub events as JSON lines.",
        discussion: """
            Configures Amplify (if a configuration file is found), then prints one JSON line per event on \
            the channel (default: every built-in channel), as it arrives, until --count events were printed or \
            --timeout seconds passed. Payload data is summarised (a user's name and id, a call's success or error); \
            tokens, codes and passwords are never printed.
            """)
    static var needsConfiguration: Bool { false }

    @OptionGroup var global: GlobalOptions
    @Option(help: ArgumentHelp("Only this channel (auth, storage, analytics, hub, or a custom name).", valueName: "name")) var channel: String?
    @Option(help: ArgumentHelp("Stop after this many events.", valueName: "number")) var count: String?
    @Option(help: ArgumentHelp("Stop after this many seconds.", valueName: "seconds")) var timeout: String?

    func validate() throws {
        _ = try count.map { try Self.positiveInt($0, "--count") }
        _ = try timeout.map { try Self.positiveInt($0, "--timeout") }
    }

    func execute() async throws -> CommandResult {
        let count = try count.map { try Self.positiveInt($0, "--count") }
        let timeout = try timeout.map { try Self.positiveInt($0, "--timeout") }
        let channels = channel.map { [HubChannel(name: $0)] } ?? HubChannel.amplifyChannels
        let printed = Locked(0)
        let done = AsyncStream<Void>.makeStream()
        let tokens = channels.map { channel in
            Amplify.Hub.listen(to: channel) { payload in
                Output.line(Self.line(channel, payload))
                let total = printed.withLock { value -> Int in
                    value += 1
                    return value
                }
                if let count, total >= count { done.continuation.yield() }
            }
        }
        // Listen first, so the events of configuring (Amplify.configured, a restored session's
        // expiry) are printed too.
        if let configuration = try? CLIConfiguration.load(global) { try Amplify.configure(configuration) }
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

    private static func positiveInt(_ text: String, _ option: String) throws -> Int {
        guard let value = Int(text), value > 0 else { throw ValidationError("\(option) needs a positive whole number; got '\(text)'.") }
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
        case let user as AuthUserEvent:
            var object: [String: JSONValue] = ["username": .string(user.username), "sub": .string(user.sub), "scope": .string(user.scope.rawValue)]
            if let error = user.error { object["error"] = .string(error.errorDescription) }
            return .object(object)
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
