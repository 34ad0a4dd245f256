import Amplify
import Foundation
import Logging

/// The tool's swift-log handler: one line per message on standard error,
/// `[level] label: message (key=value, ...)`. It writes every level it is given: Amplify's own
/// level (`--verbose`, `$AMPLIFY_LOG_LEVEL`, the configuration) has already chosen. The message
/// and metadata are escaped (``PrintableText``): what they quote of the input stays on its line.
struct StandardErrorLogHandler: LogHandler {
    let label: String
    var metadata: Logging.Logger.Metadata = [:]
    var logLevel: Logging.Logger.Level = .trace

    subscript(metadataKey key: String) -> Logging.Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let pairs = merged.isEmpty ? "" : " (" + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + ")"
        FileHandle.standardError.write(Data("[\(event.level)] \(label): \(PrintableText(event.message.description))\(PrintableText(pairs))\n".utf8))
    }
}
