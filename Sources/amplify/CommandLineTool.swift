import AmplifyPlugins
import Foundation

/// Parses the global options, finds the command and runs it.
enum CommandLineTool {
    /// Exit codes: 0 success, 1 the command failed, 2 the command line was wrong.
    enum ExitCode {
        static let success: Int32 = 0
        static let failure: Int32 = 1
        static let usage: Int32 = 2
    }

    static let commands: [any CLICommand] = [ConfigCheckCommand(), DemoCommand.command, HubListenCommand.command] + AuthCommands.all + AnalyticsCommands.all + StorageCommands.all

    static func run(_ arguments: [String]) async -> Int32 {
        var options: GlobalOptions
        var rest: [String]
        do {
            (options, rest) = try GlobalOptions.parse(arguments)
        } catch let error as UsageError {
            Output.error(error.message)
            Output.error("Run `amplify --help` for usage.")
            return ExitCode.usage
        } catch {
            return ExitCode.usage
        }
        if rest.isEmpty || rest == ["help"] {
            Output.line(Help.topLevel(commands))
            return rest.isEmpty && !options.help ? ExitCode.usage : ExitCode.success
        }
        let matching = commands.filter { rest.starts(with: $0.path) }
        guard let command = matching.max(by: { $0.path.count < $1.path.count }) else {
            let group = commands.filter { $0.path.first == rest.first }
            if !group.isEmpty, rest.count == 1 || options.help {
                Output.line(Help.group(rest[0], group))
                return options.help ? ExitCode.success : ExitCode.usage
            }
            Output.error("Unknown command: \(rest.joined(separator: " ")).")
            Output.error("Run `amplify --help` for the list of commands.")
            return ExitCode.usage
        }
        let commandArguments = Array(rest.dropFirst(command.path.count))
        if options.help || commandArguments.contains("--help") || commandArguments.contains("-h") {
            Output.line(Help.command(command))
            return ExitCode.success
        }
        Amplify.registerBuiltInPlugins()
        let code = await command.run(commandArguments, options: options)
        await Amplify.reset()
        return code
    }
}

/// Options every command takes.
struct GlobalOptions {
    /// `--config PATH`: the configuration file (else `$AMPLIFY_CONFIG`, then the working directory).
    var configPath: String?
    /// `--json`: machine-readable output on stdout; diagnostics on stderr.
    var json = false
    /// `--help` / `-h`.
    var help = false
    /// `--verbose`: debug logging on stderr.
    var verbose = false

    static let summary = """
          --config PATH   configuration file (default: $AMPLIFY_CONFIG, then amplifyconfiguration.json,
                          amplify_outputs.json, awsconfiguration.json in the working directory)
          --json          machine-readable output on stdout; diagnostics go to stderr
          --verbose       log debug messages to stderr
          -h, --help      show help for the command
        """

    /// Takes the global options out of `arguments`, wherever they stand.
    static func parse(_ arguments: [String]) throws -> (GlobalOptions, [String]) {
        var options = GlobalOptions()
        var rest: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--config":
                guard index + 1 < arguments.count else { throw UsageError("--config needs a path.") }
                options.configPath = arguments[index + 1]
                index += 1
            case _ where argument.hasPrefix("--config="):
                options.configPath = String(argument.dropFirst("--config=".count))
            case "--json": options.json = true
            case "--verbose": options.verbose = true
            case "--help", "-h": options.help = true
            default: rest.append(argument)
            }
            index += 1
        }
        return (options, rest)
    }
}

/// A mistake on the command line.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// One `amplify` command.
protocol CLICommand: Sendable {
    /// The words that name it (`["config", "check"]`).
    var path: [String] { get }
    /// One line for the command list.
    var summary: String { get }
    /// The full help text (usage, what it does, its own options).
    var help: String { get }
    /// Runs it; returns the exit code.
    func run(_ arguments: [String], options: GlobalOptions) async -> Int32
}
