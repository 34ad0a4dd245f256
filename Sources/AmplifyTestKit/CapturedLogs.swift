import AmplifyConcurrency
import Logging

/// A swift-log backend that keeps every record in memory, label included, for tests: hand
/// ``makeLogger(label:)`` to `SwiftLogLoggingPlugin(makeLogger:)`, or ``makeHandler(label:)`` to
/// `LoggingSystem.bootstrap` in a process of its own. Its handlers start at `.trace`, so what
/// reaches them is what Amplify's own level let through.
public final class CapturedLogs: Sendable {
    /// One log record.
    public struct Record: Sendable, Equatable {
        /// The logger's label (`amplify.auth`).
        public let label: String
        /// swift-log's level.
        public let level: Logging.Logger.Level
        /// The text.
        public let message: String
        /// The metadata, values as text.
        public let metadata: [String: String]

        /// A record (to compare with what was captured).
        public init(label: String, level: Logging.Logger.Level, message: String, metadata: [String: String] = [:]) {
            self.label = label
            self.level = level
            self.message = message
            self.metadata = metadata
        }

        /// The record as one line: label, level, message and metadata, for searching.
        public var line: String {
            "\(label) \(level) \(message) " + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
    }

    private let stored = Locked<[Record]>([])

    /// An empty capture.
    public init() {}

    /// Everything logged so far, in order.
    public var records: [Record] { stored.withLock { $0 } }

    /// Forgets what was captured.
    public func clear() { stored.withLock { $0.removeAll() } }

    /// A handler for `label` at `.trace` that records here.
    public func makeHandler(label: String) -> any LogHandler {
        CapturingHandler(label: label, logs: self)
    }

    /// A logger for `label` whose handler records here.
    public func makeLogger(label: String) -> Logging.Logger {
        Logging.Logger(label: label) { label in self.makeHandler(label: label) }
    }

    fileprivate func append(_ record: Record) {
        stored.withLock { $0.append(record) }
    }
}

private struct CapturingHandler: LogHandler {
    let label: String
    let logs: CapturedLogs
    var metadata: Logging.Logger.Metadata = [:]
    var logLevel: Logging.Logger.Level = .trace

    subscript(metadataKey key: String) -> Logging.Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        logs.append(CapturedLogs.Record(label: label, level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
    }
}
