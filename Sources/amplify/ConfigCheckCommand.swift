import Amplify
import ArgumentParser
import Foundation

/// `amplify config check`: loads the configuration through the same code path as
/// `Amplify.configure()`, prints each category, its plugins and their key facts, and says
/// whether every plugin could be configured.
struct ConfigCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check", abstract: "Check a configuration file; summarise it.",
        discussion: """
            Loads the configuration file (Gen 1 amplifyconfiguration.json, awsconfiguration.json, Gen 2 \
            amplify_outputs.json, or Amplify JS's aws-exports shape and v6 resources object), prints each \
            category, its plugins and their key facts (region, pool ids, bucket, ...; secrets are never \
            printed) and every resource the file names (user pools, identity pools, buckets, GraphQL and \
            REST APIs, streams), then configures every plugin exactly as Amplify.configure() would. \
            What is read but not applied (a plugin key with no plugin, a retired Pinpoint block, a key \
            beyond the Gen 2 schema) is printed as a `warning:` line on stderr; categories this package \
            does not have are listed as not handled. Exits 0 when the file configures (warnings \
            included); 1 on an error, printed with how to fix it, or on any warning with --strict.
            """)

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Fail (exit 1) on any warning.") var strict = false
    @Argument(help: ArgumentHelp("The configuration file, as an argument (the same as --config).", valueName: "file"))
    var file: String?

    func validate() throws {
        if let file, let configPath = global.configPath, file != configPath {
            throw ValidationError("Two files given: '\(file)' and --config '\(configPath)'; check one at a time.")
        }
    }

    func run() async throws {
        let code = await CommandRunner.withAmplify { await check() }
        guard code == CommandLineTool.ExitCodes.success else { throw ExitCode(code) }
    }

    private func check() async -> Int32 {
        var options = global
        if let file { options.configPath = file }
        if options.verbose { Amplify.Logging.logLevel = .debug }
        let configuration: AmplifyConfiguration
        do {
            configuration = try CLIConfiguration.load(options)
        } catch {
            if options.json { Output.json(["ok": false, "error": CLIConfiguration.errorJSON(error)]) }
            Output.report(error)
            return CommandLineTool.ExitCodes.failure
        }
        let summary = ConfigurationSummary(configuration)
        var failure: (any Error)?
        do {
            try Amplify.configure(configuration)
        } catch {
            failure = error
        }
        let findings = failure == nil ? Amplify.configurationFindings : configuration.findings
        let warnings = findings.filter(\.isWarning)
        let failed = failure != nil || (strict && !warnings.isEmpty)
        if options.json {
            var object = summary.json.asObject ?? [:]
            object["ok"] = .boolean(!failed)
            object["warnings"] = .array(
                warnings.map { ["path": .string($0.path), "message": .string($0.message), "suggestion": .string($0.suggestion)] })
            if let failure { object["error"] = CLIConfiguration.errorJSON(failure) }
            Output.json(.object(object))
        } else {
            Output.line(summary.text)
            if failure == nil {
                let skippedPlugins = findings.filter { finding in
                    finding.kind == .unusedPlugin || finding.kind == .retiredService
                        || (finding.kind == .placeholder && finding.path.contains(".plugins."))
                }
                let applied = summary.pluginCount - skippedPlugins.count
                let warned = warnings.isEmpty ? "" : "; \(warnings.count) warning\(warnings.count == 1 ? "" : "s")"
                Output.line("\nOK: Amplify.configure() accepted the configuration (\(applied) plugin\(applied == 1 ? "" : "s") configured\(warned)).")
            }
        }
        for warning in warnings {
            Output.error("warning: \(PrintableText(warning.message))")
            Output.error("  \(PrintableText(warning.suggestion))")
        }
        if let failure {
            Output.report(failure)
            return CommandLineTool.ExitCodes.failure
        }
        if failed {
            Output.error("error: --strict: \(warnings.count) warning\(warnings.count == 1 ? "" : "s") in \(summary.file).")
            return CommandLineTool.ExitCodes.failure
        }
        return CommandLineTool.ExitCodes.success
    }
}
