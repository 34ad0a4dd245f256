import AmplifyPlugins
import ArgumentParser
import Foundation

/// Parses the command line with swift-argument-parser, runs the command, and turns what went
/// wrong into the tool's messages and exit codes.
enum CommandLineTool {
    /// Exit codes: 0 success, 1 the command failed, 2 the command line was wrong.
    enum ExitCodes {
        static let success: Int32 = 0
        static let failure: Int32 = 1
        static let usage: Int32 = 2
    }

    /// The version `amplify --version` prints: the package's, `Amplify.version`.
    static let version = Amplify.version

    /// Runs `arguments` (without the program name); returns the exit code.
    static func run(_ arguments: [String]) async -> Int32 {
        do {
            var command = try AmplifyTool.parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return ExitCodes.success
        } catch let code as ExitCode {
            return code.rawValue
        } catch {
            return report(error, arguments: arguments)
        }
    }

    /// Help, `--version` and completion scripts go to standard output (exit 0); a command line
    /// the parser refused gets its message first, then the usage, on standard error (exit 2).
    private static func report(_ error: any Error, arguments: [String]) -> Int32 {
        let code = AmplifyTool.exitCode(for: error)
        if code == .success {
            Output.line(AmplifyTool.fullMessage(for: error))
            return ExitCodes.success
        }
        guard code == .validationFailure else {
            Output.error(AmplifyTool.fullMessage(for: error))
            return code.rawValue
        }
        if let unknown = unknownCommand(in: arguments) {
            Output.error("Unknown command: \(unknown).")
            Output.error("Run `amplify --help` for the list of commands.")
            return ExitCodes.usage
        }
        var lines = AmplifyTool.fullMessage(for: error).components(separatedBy: "\n")
        if let first = lines.first, first.hasPrefix("Error: ") { lines.removeFirst() }
        Output.error(([plainMessage(AmplifyTool.message(for: error))] + lines).joined(separator: "\n"))
        return ExitCodes.usage
    }

    /// The parser's message in the tool's words where they differ: a missing value says what
    /// the option needs (`--config needs a path.`).
    static func plainMessage(_ message: String) -> String {
        let missing = "Missing value for '"
        if message.hasPrefix(missing), message.hasSuffix(">'") {
            let inner = message.dropFirst(missing.count).dropLast(2)
            let parts = inner.split(separator: " <", maxSplits: 1)
            if parts.count == 2 {
                let noun = String(parts[1])
                let article = noun.first.map { "aeio".contains($0) } == true ? "an" : "a"
                return "\(parts[0]) needs \(article) \(noun)."
            }
        }
        return message
    }

    /// The words of `arguments` (global options left out) when they do not name a command:
    /// a word where a command of a group was expected.
    static func unknownCommand(in arguments: [String]) -> String? {
        var words: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--config" {
                index += 2
                continue
            }
            if !["--json", "--verbose"].contains(argument), !argument.hasPrefix("--config=") { words.append(argument) }
            index += 1
        }
        var command: any ParsableCommand.Type = AmplifyTool.self
        for word in words {
            let subcommands = command.configuration.subcommands
            if subcommands.isEmpty || word.hasPrefix("-") || word == "help" { return nil }
            guard let next = subcommands.first(where: { $0.configuration.commandName == word }) else {
                return words.joined(separator: " ")
            }
            command = next
        }
        return nil
    }
}

/// Options every command takes, wherever they stand on the command line.
struct GlobalOptions: ParsableArguments {
    /// `--config PATH`: the configuration file (else `$AMPLIFY_CONFIG`, then the working directory).
    @Option(
        name: .customLong("config"),
        help: ArgumentHelp(
            "The configuration file (default: $AMPLIFY_CONFIG, then amplifyconfiguration.json, amplify_outputs.json, awsconfiguration.json in the working directory).",
            valueName: "path"))
    var configPath: String?

    /// `--json`: machine-readable output on stdout; diagnostics on stderr.
    @Flag(help: "Machine-readable output on stdout; diagnostics go to stderr.")
    var json = false

    /// `--verbose`: debug logging on stderr.
    @Flag(help: "Log debug messages to stderr.")
    var verbose = false
}

/// A mistake on the command line found while the command runs (exit 2).
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// `amplify`: the root command. Without a command it prints its help and exits 2.
struct AmplifyTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "amplify",
        abstract: "Amplify for server-side Swift on Linux.",
        discussion: CommandList.text(for: groups),
        version: CommandLineTool.version,
        subcommands: groups)

    /// The commands and groups under `amplify`, in the order help lists them.
    static let groups: [any ParsableCommand.Type] = [
        ConfigGroup.self, DemoCommand.self, HubGroup.self, AuthGroup.self, AnalyticsGroup.self, StorageGroup.self, APIGroup.self,
        EventsGroup.self, DataGroup.self, CodegenGroup.self,
    ]

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        Output.line(Self.helpMessage())
        throw ExitCode(CommandLineTool.ExitCodes.usage)
    }
}

/// Every leaf command under `commands`, one per line with its abstract, for the root's help.
enum CommandList {
    static func text(for commands: [any ParsableCommand.Type]) -> String {
        let rows = commands.flatMap { leaves($0, prefix: []) }
        let width = (rows.map(\.0.count).max() ?? 0) + 2
        return "COMMANDS:\n" + rows.map { "  " + $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + $0.1 }.joined(separator: "\n")
    }

    private static func leaves(_ command: any ParsableCommand.Type, prefix: [String]) -> [(String, String)] {
        let configuration = command.configuration
        let path = prefix + [configuration.commandName ?? ""]
        if configuration.subcommands.isEmpty { return [(path.joined(separator: " "), configuration.abstract)] }
        return configuration.subcommands.flatMap { leaves($0, prefix: path) }
    }
}

/// A group of commands (`amplify auth`): without a command it prints its help and exits 2.
protocol CommandGroup: AsyncParsableCommand {}

extension CommandGroup {
    /// Prints the group's help; exit 2.
    func run() async throws {
        Output.line(AmplifyTool.helpMessage(for: Self.self))
        throw ExitCode(CommandLineTool.ExitCodes.usage)
    }
}

/// `amplify config …`.
struct ConfigGroup: CommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "Configuration files.", subcommands: [ConfigCheckCommand.self])
}

/// `amplify hub …`.
struct HubGroup: CommandGroup {
    static let configuration = CommandConfiguration(commandName: "hub", abstract: "The Hub.", subcommands: [HubListenCommand.self])
}
