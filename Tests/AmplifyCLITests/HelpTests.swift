import Testing

@Suite("amplify help and usage")
struct HelpTests {
    /// Every command, as `amplify --help` lists it.
    static let commands = [
        "config check", "demo", "hub listen", "auth sign-up", "auth confirm-sign-up", "auth resend-code", "auth sign-in",
        "auth verify-token", "auth sign-out", "auth whoami", "auth session", "auth attributes", "auth update-attribute",
        "auth change-password", "auth reset-password", "auth confirm-reset-password", "auth delete-user", "auth outbox",
        "auth jwks", "auth verify-attribute", "auth confirm-attribute", "auth setup-totp", "auth verify-totp", "auth mfa", "auth devices",
        "auth remember-device", "auth forget-device", "analytics record", "analytics flush", "analytics status", "storage put", "storage get",
        "storage ls",
        "storage rm", "storage url", "api query", "api mutate", "api subscribe", "api get", "api post", "api put", "api patch", "api delete",
    ]

    @Test("--help lists every command and the global options, and exits 0")
    func topLevelHelp() async throws {
        let run = try await Tool.run(["--help"])
        #expect(run.exitCode == 0)
        #expect(run.stdout.contains("config check"))
        // swift-argument-parser writes an option's value as <path>.
        #expect(run.stdout.contains("--config <path>"))
        #expect(run.stdout.contains("--json"))
        #expect(run.stdout.hasPrefix("OVERVIEW: Amplify for server-side Swift on Linux.\n\nCOMMANDS:\n"))
        for command in Self.commands {
            #expect(run.stdout.contains("\n  \(command) "), "\(command) is missing from --help")
        }
        #expect(run.stdout.contains("  auth confirm-sign-up         Confirm a new user with the code.\n"))
        #expect(run.stdout.contains("USAGE: amplify [--config <path>] [--json] [--verbose] <subcommand>"))
        #expect(run.stdout.contains("  --verbose               Log debug messages to stderr.\n"))
        #expect(run.stdout.contains("  --version               Show the version.\n"))
    }

    @Test("every command has its own --help")
    func commandHelp() async throws {
        let run = try await Tool.run(["config", "check", "--help"])
        #expect(run.exitCode == 0)
        #expect(run.stdout.hasPrefix("OVERVIEW: Check a configuration file; summarise it.\n"))
        #expect(run.stdout.contains("USAGE: amplify config check [--config <path>] [--json] [--verbose] [--strict] [<file>]"))
        #expect(run.stdout.contains("  --strict                Fail (exit 1) on any warning.\n"))
        let group = try await Tool.run(["config", "--help"])
        #expect(group.exitCode == 0)
        #expect(group.stdout.contains("USAGE: amplify config <subcommand>"))
        #expect(group.stdout.contains("SUBCOMMANDS:\n  check                   Check a configuration file; summarise it.\n"))
    }

    @Test("help is generated for every command, with its usage, arguments and the global options")
    func helpForEveryCommand() async throws {
        for command in Self.commands {
            let words = command.split(separator: " ").map(String.init)
            let run = try await Tool.run(words + ["--help"])
            #expect(run.exitCode == 0, "\(command)")
            #expect(run.stdout.hasPrefix("OVERVIEW: "), "\(command)")
            #expect(run.stdout.contains("USAGE: amplify \(command) [--config <path>] [--json] [--verbose]"), "\(command): \(run.stdout)")
            #expect(run.stdout.contains("  --config <path>"), "\(command)")
            let viaHelp = try await Tool.run(["help"] + words)
            #expect(viaHelp.stdout == run.stdout, "\(command)")
        }
        let signIn = try await Tool.run(["auth", "sign-in", "--help"])
        #expect(signIn.stdout.contains("never from the command line"))
        #expect(signIn.stdout.contains("  --password-stdin        Read the password (and the answers to challenges)\n"))
    }

    @Test("an unknown command or a bad option exits 2 with a pointer to --help")
    func usageErrors() async throws {
        let unknown = try await Tool.run(["frobnicate"])
        #expect(unknown.exitCode == 2)
        #expect(unknown.stderr.contains("Unknown command: frobnicate."))
        let noPath = try await Tool.run(["config", "check", "--config"])
        #expect(noPath.exitCode == 2)
        #expect(noPath.stderr.contains("--config needs a path."))
        let none = try await Tool.run([])
        #expect(none.exitCode == 2)
        #expect(none.stdout.contains("USAGE: amplify"))
    }

    @Test("a wrong value or an unknown option is refused before anything runs, with a message that names the option")
    func validationNamesTheOption() async throws {
        let unknownOption = try await Tool.run(["storage", "ls", "--recursive"])
        #expect(unknownOption.exitCode == 2)
        #expect(unknownOption.stderr.hasPrefix("Unknown option '--recursive'\nUsage: amplify storage ls"))
        let count = try await Tool.run(["hub", "listen", "--count", "many"])
        #expect(count.exitCode == 2)
        #expect(count.stderr.hasPrefix("--count needs a positive whole number; got 'many'."))
        let missing = try await Tool.run(["hub", "listen", "--timeout"])
        #expect(missing.stderr.hasPrefix("--timeout needs a seconds."))
        let unknownInGroup = try await Tool.run(["auth", "log-in", "bob"])
        #expect(unknownInGroup.exitCode == 2)
        #expect(unknownInGroup.stderr == "Unknown command: auth log-in bob.\nRun `amplify --help` for the list of commands.\n")
        let group = try await Tool.run(["auth"])
        #expect(group.exitCode == 2)
        #expect(group.stdout.contains("USAGE: amplify auth <subcommand>"))
        let web = try await Tool.run(["auth", "sign-in", "--web", "bob"])
        #expect(web.exitCode == 2)
        #expect(web.stderr.hasPrefix("auth sign-in --web takes no USER"))
    }

    @Test("a password on the command line is refused without being repeated; there is no --password option")
    func passwordNeverFromTheCommandLine() async throws {
        for arguments in [
            ["auth", "sign-in", "bob", "Hunter2!pass"], ["auth", "sign-in", "bob", "--password", "Hunter2!pass"],
            ["auth", "sign-up", "bob", "--email", "b@example.com", "Hunter2!pass"], ["auth", "change-password", "Hunter2!pass"],
            ["auth", "confirm-reset-password", "bob", "123456", "Hunter2!pass"],
        ] {
            let run = try await Tool.run(arguments)
            #expect(run.exitCode == 2, "\(arguments)")
            #expect(!run.stderr.contains("Hunter2!pass") && !run.stdout.contains("Hunter2!pass"), "\(arguments)")
            #expect(run.stderr.contains("--password-stdin"), "\(arguments)")
        }
        #expect(try await Tool.run(["auth", "sign-in", "bob", "--password", "x"]).stderr.contains("There is no --password option."))
    }

    @Test("--version prints the version; --generate-completion-script writes bash, zsh and fish scripts that know every command")
    func versionAndCompletion() async throws {
        let version = try await Tool.run(["--version"])
        #expect(version.exitCode == 0)
        #expect(version.stdout == "0.1.0\n")
        for shell in ["bash", "zsh", "fish"] {
            let script = try await Tool.run(["--generate-completion-script", shell])
            #expect(script.exitCode == 0, "\(shell)")
            // fish names options without their dashes (-l password-stdin).
            for word in ["confirm-reset-password", "verify-token", "password-stdin", "strict", "config"] {
                #expect(script.stdout.contains(word), "\(shell) script lacks \(word)")
            }
        }
        #expect(try await Tool.run(["--generate-completion-script", "bash"]).stdout.hasPrefix("#!/bin/bash"))
        #expect(try await Tool.run(["--generate-completion-script", "zsh"]).stdout.hasPrefix("#compdef amplify"))
        #expect(try await Tool.run(["--generate-completion-script", "tcsh"]).exitCode == 2)
    }

    @Test("global options work before the command, after it, and in the --config=PATH form")
    func globalOptionsAnywhere() async throws {
        let sample = Tool.samples.appendingPathComponent("embedded.json").path
        for arguments in [
            ["--json", "config", "check", "--config", sample], ["config", "--json", "check", "--config=\(sample)"],
            ["config", "check", "--config", sample, "--json"],
        ] {
            let run = try await Tool.run(arguments)
            #expect(run.exitCode == 0, "\(arguments): \(run.stderr)")
            #expect(run.stdout.hasPrefix("{"), "\(arguments)")
        }
    }
}
