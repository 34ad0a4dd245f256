import AmplifyTestKit
import Foundation
import Testing

@Suite("Examples/SessionManager")
struct SessionManagerExampleTests {
    @Test("the session-manager example follows sign-up, sign-in, expiry on its own, sign-in and sign-out")
    func flow() async throws {
        let run = try await ProductRunner.run("SessionManager")
        let (status, stdout) = (run.exitCode, run.stdout)
        #expect(status == 0)
        let lines = stdout.split(separator: "\n").map(String.init)
        // The session lines come from the manager's watcher task, the results from the flow: each
        // kind is in order, the two interleave as the tasks run.
        #expect(
            lines.filter { $0.hasPrefix("session: ") } == [
                "session: signed out (initial)",
                "session: awaiting confirmation of sam",
                "session: signed out (initial)",
                "session: signed in as sam",
                "session: signed out (sessionExpired)",
                "session: signed in as sam",
                "session: signed out (signedOut)",
            ])
        #expect(lines.filter { !$0.hasPrefix("session: ") } == ["expired on its own: true", "signed out: true"])
    }
}
