import Amplify
import Foundation

/// Writes to stdout and stderr.
enum Output {
    /// A line on standard output.
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// A line on standard error.
    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// An error's description and recovery suggestion on standard error, each one line
    /// (``PrintableText``: what they quote of the input cannot add lines or control the terminal).
    static func report(_ error: any Error) {
        if let error = error as? any AmplifyError {
            Output.error("error: \(PrintableText(error.errorDescription))")
            if !error.recoverySuggestion.isEmpty { Output.error("how to fix: \(PrintableText(error.recoverySuggestion))") }
        } else {
            Output.error("error: \(PrintableText(String(describing: error)))")
        }
    }

    /// A JSON value on standard output, keys sorted, pretty-printed.
    static func json(_ value: JSONValue) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return }
        line(String(decoding: data, as: UTF8.self))
    }
}

extension JSONValue {
    /// One-line JSON.
    var compactText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}
