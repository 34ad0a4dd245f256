import AmplifyPlugins
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a token from standard input for `auth verify-token -` (or no TOKEN): a token on the
/// command line is visible to every user through `ps` and lands in the shell's history.
enum TokenReader {
    /// The most read from standard input: four times the verifier's 64 KiB cap, so an oversized
    /// token is still reported as too large rather than cut, and a stream that never ends is not
    /// read into memory.
    static let maximumInput = 256 * 1024

    /// The token: standard input up to its end (or the first line on a terminal), without the
    /// surrounding white space.
    /// - Throws: ``AuthError/validation(_:_:_:_:)`` when standard input is empty or longer than
    ///   ``maximumInput`` bytes.
    static func readStandardInput() throws -> String {
        var bytes: [UInt8] = []
        if isatty(STDIN_FILENO) == 1 {
            FileHandle.standardError.write(Data("Token (then Enter): ".utf8))
            bytes = Array((readLine(strippingNewline: true) ?? "").utf8)
        } else {
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while bytes.count <= maximumInput {
                let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                bytes.append(contentsOf: buffer[0..<count])
            }
        }
        guard bytes.count <= maximumInput else {
            throw AuthError.validation(
                "token", "Standard input holds more than \(maximumInput) bytes; a token is a few KiB.", "Pass only the token on standard input.")
        }
        let token = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else {
            throw AuthError.validation("token", "There was no token on standard input.", "Pipe the token to the command, or pass it as TOKEN.")
        }
        return token
    }
}
