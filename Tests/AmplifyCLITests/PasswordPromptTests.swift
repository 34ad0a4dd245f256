import AmplifyTestKit
import Foundation
import Testing

/// The password prompt on a real terminal (a pseudo-terminal driven by Python's pty module).
@Suite("amplify password prompt")
struct PasswordPromptTests {
    @Test("Ctrl-C at the password prompt ends the command and leaves the terminal with echo on")
    func interruptRestoresEcho() async throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("cli-pty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(
            at: Tool.samples.appendingPathComponent("embedded.json"), to: folder.appendingPathComponent("amplifyconfiguration.json"))
        let script = """
            import os, pty, sys, termios, time
            pid, fd = pty.fork()
            if pid == 0:
                os.chdir(sys.argv[2])
                os.execv(sys.argv[1], [sys.argv[1], "auth", "sign-in", "alice"])
            seen = b""
            deadline = time.time() + 60
            while b"assword" not in seen and time.time() < deadline:
                try:
                    seen += os.read(fd, 1024)
                except OSError:
                    break
            time.sleep(0.2)
            during = termios.tcgetattr(fd)[3] & termios.ECHO
            os.write(fd, b"\\x03")
            _, status = os.waitpid(pid, 0)
            after = termios.tcgetattr(fd)[3] & termios.ECHO
            print("prompt", b"assword" in seen, "during", bool(during), "after", bool(after), "signalled", os.WIFSIGNALED(status))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, ProductRunner.url(of: "amplify").path, folder.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.runSerialized()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        await process.exited()
        #expect(printed == "prompt True during False after True signalled True\n")
    }
}
