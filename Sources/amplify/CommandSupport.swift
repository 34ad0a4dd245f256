import AmplifyPlugins
import Foundation

/// What a command prints: text for people, JSON with `--json`.
struct CommandResult {
    var text: String
    var json: JSONValue
}

/// A command's own arguments: positional values and `--flag [value]` options.
struct ParsedArguments {
    var positional: [String] = []
    var values: [String: String] = [:]
    var switches: Set<String> = []

    /// Splits `arguments`, accepting the value options in `valueOptions` and the switches in
    /// `switchOptions`.
    /// - Throws: ``UsageError`` for an unknown option or a missing value.
    init(_ arguments: [String], valueOptions: Set<String>, switchOptions: Set<String>) throws {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if valueOptions.contains(argument) {
                guard index + 1 < arguments.count else { throw UsageError("\(argument) needs a value.") }
                values[argument] = arguments[index + 1]
                index += 1
            } else if switchOptions.contains(argument) {
                switches.insert(argument)
            } else if argument.hasPrefix("--") {
                throw UsageError("Unknown option \(argument).")
            } else {
                positional.append(argument)
            }
            index += 1
        }
    }
}

/// A command described by its words, arguments and an action: the shape of most `amplify`
/// commands.
struct ActionCommand: CLICommand {
    let path: [String]
    let summary: String
    let usage: String
    let details: String
    var positional: [String] = []
    var valueOptions: Set<String> = []
    var switchOptions: Set<String> = []
    /// Whether more positional arguments than ``positional`` names may follow (`KEY=VALUE ...`).
    var acceptsMorePositional = false
    /// Whether the positional arguments may be left out (the action checks what it got).
    var acceptsFewerPositional = false
    /// Whether the command configures Amplify from the configuration file first.
    var needsConfiguration = true
    let action: @Sendable (ParsedArguments, GlobalOptions) async throws -> CommandResult

    var help: String { "Usage: amplify \(path.joined(separator: " ")) \(usage)\n\n\(details)" }

    func run(_ arguments: [String], options: GlobalOptions) async -> Int32 {
        let parsed: ParsedArguments
        do {
            parsed = try ParsedArguments(arguments, valueOptions: valueOptions, switchOptions: switchOptions)
            guard parsed.positional.count == positional.count || acceptsMorePositional && parsed.positional.count > positional.count
                || acceptsFewerPositional && parsed.positional.count < positional.count
            else {
                throw UsageError("\(path.joined(separator: " ")) takes \(positional.isEmpty ? "no arguments" : positional.joined(separator: " ")); got \(parsed.positional.count).")
            }
        } catch let error as UsageError {
            Output.error(error.message)
            Output.error("Usage: amplify \(path.joined(separator: " ")) \(usage)")
            return CommandLineTool.ExitCode.usage
        } catch {
            return CommandLineTool.ExitCode.usage
        }
        do {
            if options.verbose { Amplify.Logging.logLevel = .debug }
            if needsConfiguration { try Amplify.configure(CLIConfiguration.load(options)) }
            let result = try await action(parsed, options)
            if options.json { Output.json(result.json) } else if !result.text.isEmpty { Output.line(result.text) }
            await Amplify.Hub.flush()
            return CommandLineTool.ExitCode.success
        } catch let error as UsageError {
            Output.error(error.message)
            Output.error("Usage: amplify \(path.joined(separator: " ")) \(usage)")
            return CommandLineTool.ExitCode.usage
        } catch {
            if options.json { Output.json(["ok": false, "error": CLIConfiguration.errorJSON(error)]) }
            Output.report(error)
            return CommandLineTool.ExitCode.failure
        }
    }
}

/// Finding and loading the configuration file for a command.
enum CLIConfiguration {
    /// `--config PATH`, else `$AMPLIFY_CONFIG` and the files in the working directory.
    static func load(_ options: GlobalOptions) throws -> AmplifyConfiguration {
        guard let path = options.configPath else { return try ConfigurationLocator.loadDefault() }
        let url = path.hasPrefix("/")
            ? URL(fileURLWithPath: path)
            : URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(path)
        return try ConfigurationLocator.load(url.standardizedFileURL)
    }

    /// An error as `{"description", "recoverySuggestion"}`.
    static func errorJSON(_ error: any Error) -> JSONValue {
        guard let error = error as? any AmplifyError else { return ["description": .string("\(error)")] }
        return ["description": .string(error.errorDescription), "recoverySuggestion": .string(error.recoverySuggestion)]
    }
}
