import AmplifyPlugins
import ArgumentParser
import Foundation

/// What a command prints: text for people, JSON with `--json`.
struct CommandResult {
    var text: String
    var json: JSONValue
}

/// The shape of most `amplify` commands: the global options, Amplify configured from the
/// configuration file first (unless ``needsConfiguration`` is false), then ``execute()``, whose
/// result is printed as text, or as JSON with `--json`.
protocol AmplifyCommand: AsyncParsableCommand {
    /// `--config`, `--json`, `--verbose`.
    var global: GlobalOptions { get }
    /// Whether the command configures Amplify from the configuration file first.
    static var needsConfiguration: Bool { get }
    /// Does the work; throws ``UsageError`` for a command line it cannot use (exit 2), any other
    /// error when the work failed (exit 1).
    func execute() async throws -> CommandResult
}

extension AmplifyCommand {
    /// Configures Amplify first.
    static var needsConfiguration: Bool { true }

    /// Runs ``execute()`` with Amplify's built-in plugins registered, prints what it returned or
    /// why it failed, and resets Amplify; a failure ends with the command's exit code.
    func run() async throws {
        let command = self
        let code = await CommandRunner.withAmplify {
            await CommandRunner.run(usage: AmplifyTool.usageString(for: Self.self), options: command.global, configure: Self.needsConfiguration) {
                try await command.execute()
            }
        }
        guard code == CommandLineTool.ExitCodes.success else { throw ExitCode(code) }
    }
}

/// What every command does around its own work.
enum CommandRunner {
    /// Registers the built-in plugins, runs `body`, then resets Amplify (delivering what the Hub
    /// holds and closing every plugin).
    static func withAmplify(_ body: () async -> Int32) async -> Int32 {
        Amplify.registerBuiltInPlugins()
        let code = await body()
        await Amplify.reset()
        return code
    }

    /// `--verbose`, configuration, the work, and the output: a result on stdout (text or JSON),
    /// an error on stderr with how to fix it (and, with `--json`, as JSON on stdout).
    static func run(usage: String, options: GlobalOptions, configure: Bool, _ work: () async throws -> CommandResult) async -> Int32 {
        do {
            if options.verbose { Amplify.Logging.logLevel = .debug }
            if configure { try Amplify.configure(CLIConfiguration.load(options)) }
            let result = try await work()
            if options.json { Output.json(result.json) } else if !result.text.isEmpty { Output.line(result.text) }
            await Amplify.Hub.flush()
            return CommandLineTool.ExitCodes.success
        } catch let error as UsageError {
            Output.error(error.message)
            Output.error("Usage: \(usage)")
            return CommandLineTool.ExitCodes.usage
        } catch {
            if options.json { Output.json(["ok": false, "error": CLIConfiguration.errorJSON(error)]) }
            Output.report(error)
            return CommandLineTool.ExitCodes.failure
        }
    }
}

/// What the commands that read a password say about it, and how they refuse a password on the
/// command line.
enum PasswordArguments {
    /// The sentence each such command's help ends with.
    static let help = "The password comes from a prompt without echo, or from standard input with --password-stdin; never from the command line."

    /// Refuses arguments beyond what `command` takes, without repeating them: one of them may be
    /// a password (`amplify auth sign-in bob Passw0rd!`), which must not reach the terminal's
    /// scrollback or a log.
    /// - Throws: `ValidationError` naming the command and `--password-stdin`.
    static func refuse(_ unexpected: [String], command: String, takes: String) throws {
        guard !unexpected.isEmpty else { return }
        let count = unexpected.count == 1 ? "1 more argument was" : "\(unexpected.count) more arguments were"
        let option = unexpected.contains { $0.hasPrefix("--password") && $0 != "--password-stdin" } ? " There is no --password option." : ""
        throw ValidationError(
            "\(command) takes \(takes); \(count) given (not shown: it may be a password).\(option) A password comes from the prompt, or from standard input with --password-stdin."
        )
    }
}

/// Finding and loading the configuration file for a command.
enum CLIConfiguration {
    /// `--config PATH`, else `$AMPLIFY_CONFIG` and the files in the working directory.
    static func load(_ options: GlobalOptions) throws -> AmplifyConfiguration {
        guard let path = options.configPath else { return try ConfigurationLocator.loadDefault() }
        let url =
            path.hasPrefix("/")
            ? URL(fileURLWithPath: path)
            : URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(path)
        return try AmplifyConfiguration(configurationFile: url.standardizedFileURL)
    }

    /// An error as `{"description", "recoverySuggestion"}`.
    static func errorJSON(_ error: any Error) -> JSONValue {
        guard let error = error as? any AmplifyError else { return ["description": .string("\(error)")] }
        return ["description": .string(error.errorDescription), "recoverySuggestion": .string(error.recoverySuggestion)]
    }
}
