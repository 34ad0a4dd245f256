import AmplifyPlugins
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reads passwords from a prompt without echo, or from standard input with `--password-stdin`;
/// never from the command line, where other users could see them.
enum PasswordReader {
    /// One password. With `fromStandardInput`, the next line of standard input; otherwise a
    /// prompt on the terminal with echo turned off.
    /// - Throws: ``AuthError/validation(_:_:_:_:)`` when there is no line, or no terminal to ask.
    static func read(prompt: String, fromStandardInput: Bool) throws -> String {
        if fromStandardInput {
            guard let line = readLine(strippingNewline: true) else {
                throw AuthError.validation("password", "Standard input ended before a password.", "Write the password as a line on standard input.")
            }
            return line
        }
        guard isatty(STDIN_FILENO) == 1 else {
            throw AuthError.validation(
                "password", "There is no terminal to ask for the password.", "Pass --password-stdin and write the password on standard input.")
        }
        var original = termios()
        tcgetattr(STDIN_FILENO, &original)
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        // Ctrl-C (or a kill) during the prompt would end the process with echo still off: while
        // echo is off, those signals first put the terminal back, then end the process as before.
        savedTerminal = original
        let previous = terminatingSignals.map { ($0, signal($0, restoreTerminalAndReraise)) }
        tcsetattr(STDIN_FILENO, TCSANOW, &silent)
        // The prompt once echo is off: whoever sees it may type at once.
        FileHandle.standardError.write(Data(prompt.utf8))
        defer {
            tcsetattr(STDIN_FILENO, TCSANOW, &original)
            for (number, handler) in previous { signal(number, handler) }
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return readLine(strippingNewline: true) ?? ""
    }

    /// The signals whose default action ends the process.
    private static let terminatingSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
}

/// The terminal's settings before the prompt turned echo off, for the signal handler below.
/// nonisolated(unsafe): written once before the handlers are installed, then only read by them.
private nonisolated(unsafe) var savedTerminal = termios()

/// Puts the terminal back (`tcsetattr` is async-signal-safe), then lets the signal do what it
/// would have done.
private func restoreTerminalAndReraise(_ number: Int32) {
    tcsetattr(STDIN_FILENO, TCSANOW, &savedTerminal)
    signal(number, SIG_DFL)
    raise(number)
}
