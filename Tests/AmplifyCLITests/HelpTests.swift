import Testing

@Suite("amplify help and usage")
struct HelpTests {
    @Test("--help lists every command and the global options, and exits 0")
    func topLevelHelp() throws {
        let run = try Tool.run(["--help"])
        #expect(run.exitCode == 0)
        #expect(run.stdout.contains("config check"))
        #expect(run.stdout.contains("--config PATH"))
        #expect(run.stdout.contains("--json"))
    }

    @Test("every command has its own --help")
    func commandHelp() throws {
        let run = try Tool.run(["config", "check", "--help"])
        #expect(run.exitCode == 0)
        #expect(run.stdout.hasPrefix("Usage: amplify config check"))
        let group = try Tool.run(["config", "--help"])
        #expect(group.exitCode == 0)
        #expect(group.stdout.contains("config check"))
    }

    @Test("an unknown command or a bad option exits 2 with a pointer to --help")
    func usageErrors() throws {
        let unknown = try Tool.run(["frobnicate"])
        #expect(unknown.exitCode == 2)
        #expect(unknown.stderr.contains("Unknown command: frobnicate."))
        let noPath = try Tool.run(["config", "check", "--config"])
        #expect(noPath.exitCode == 2)
        #expect(noPath.stderr.contains("--config needs a path."))
        let none = try Tool.run([])
        #expect(none.exitCode == 2)
        #expect(none.stdout.contains("Usage: amplify"))
    }
}
