import Amplify
import Foundation

/// `amplify config check`: loads the configuration through the same code path as
/// `Amplify.configure()`, prints each category, its plugins and their key facts, and says
/// whether every plugin could be configured.
struct ConfigCheckCommand: CLICommand {
    let path = ["config", "check"]
    let summary = "check a configuration file and summarise what it configures"
    let help = """
        Usage: amplify config check [--config PATH] [--json]

        Loads the configuration file (Gen 1 amplifyconfiguration.json, Gen 2 amplify_outputs.json or
        awsconfiguration.json), prints each category, its plugins and their key facts (region, pool
        ids, bucket, ...; secrets are never printed), then configures every plugin exactly as
        Amplify.configure() would. Exits 0 when all of that works; otherwise prints the error and how
        to fix it and exits 1.
        """

    func run(_ arguments: [String], options: GlobalOptions) async -> Int32 {
        if let extra = arguments.first {
            Output.error("config check takes no arguments; got '\(extra)'.")
            return CommandLineTool.ExitCode.usage
        }
        if options.verbose { Amplify.Logging.logLevel = .debug }
        let configuration: AmplifyConfiguration
        do {
            configuration = try CLIConfiguration.load(options)
        } catch {
            if options.json { Output.json(["ok": false, "error": CLIConfiguration.errorJSON(error)]) }
            Output.report(error)
            return CommandLineTool.ExitCode.failure
        }
        let summary = ConfigurationSummary(configuration)
        var failure: (any Error)?
        do {
            try Amplify.configure(configuration)
        } catch {
            failure = error
        }
        if options.json {
            var object = summary.json.asObject ?? [:]
            object["ok"] = .boolean(failure == nil)
            if let failure { object["error"] = CLIConfiguration.errorJSON(failure) }
            Output.json(.object(object))
        } else {
            Output.line(summary.text)
            if failure == nil { Output.line("\nOK: Amplify.configure() accepted every plugin (\(summary.pluginCount) in all).") }
        }
        if let failure {
            Output.report(failure)
            return CommandLineTool.ExitCode.failure
        }
        return CommandLineTool.ExitCode.success
    }
}
