import Amplify
import Foundation

/// The queue and flush settings every analytics plugin block of this package shares:
///
/// `autoFlushEventsInterval` (seconds, default 60; 0 turns auto-flush off), `maxQueuedEvents`
/// (default 100 000), `maxAttempts` (refusals before an event is set aside, default 5),
/// `batchSize` (records per delivery, default 100), `queueFile` (the SQLite file, default
/// `analytics-queue.sqlite` in `directory`), `directory` (default `.amplify/analytics`, relative
/// to the configuration file).
///
/// Ranges (``Limits``), checked when the block is read: `autoFlushEventsInterval` 0 to 86400
/// seconds, `maxQueuedEvents` 1 to 100000000, `maxAttempts` 1 to 1000, `batchSize` 1 to 10000
/// (a plugin may lower it to its service's limit). A value outside its range throws
/// `ConfigurationValueError` naming the key and the range.
public struct AnalyticsQueueSettings: Sendable, Equatable {
    /// The accepted range of each numeric setting.
    public enum Limits {
        /// `autoFlushEventsInterval`, in seconds (0: no auto-flush; at most one day).
        public static let autoFlushEventsInterval: ClosedRange<Int> = 0...86_400
        /// `maxQueuedEvents`.
        public static let maxQueuedEvents: ClosedRange<Int> = 1...100_000_000
        /// `maxAttempts`.
        public static let maxAttempts: ClosedRange<Int> = 1...1000
        /// `batchSize`.
        public static let batchSize: ClosedRange<Int> = 1...10_000
    }

    /// Seconds between automatic flushes; 0 for none.
    public var autoFlushEventsInterval: Int
    /// How many records may wait.
    public var maxQueuedEvents: Int
    /// Refusals before a record is set aside.
    public var maxAttempts: Int
    /// Records per delivery.
    public var batchSize: Int
    /// The plugin's folder.
    public var directory: String
    /// The queue's SQLite file.
    public var queueFile: String

    /// Reads the settings from a plugin block (`nil`: all defaults).
    /// - Throws: `ConfigurationValueError` naming a key of the wrong type or range.
    public init(json: JSONValue?, defaultBatchSize: Int = 100) throws(ConfigurationValueError) {
        let json = json ?? [:]
        autoFlushEventsInterval = try json.boundedInt("autoFlushEventsInterval", in: Limits.autoFlushEventsInterval, unit: "seconds") ?? 60
        maxQueuedEvents = try json.boundedInt("maxQueuedEvents", in: Limits.maxQueuedEvents) ?? 100_000
        maxAttempts = try json.boundedInt("maxAttempts", in: Limits.maxAttempts) ?? 5
        batchSize = try json.boundedInt("batchSize", in: Limits.batchSize) ?? defaultBatchSize
        directory = Amplify.resolvePath(try json.optionalString("directory") ?? ".amplify/analytics")
        queueFile =
            try json.optionalString("queueFile").map(Amplify.resolvePath) ?? (directory as NSString).appendingPathComponent("analytics-queue.sqlite")
    }

    /// Creates the folder and opens the queue.
    /// - Throws: `AnalyticsError/configuration(_:_:_:)` naming the path that could not be used.
    public func openQueue() throws -> DurableEventQueue {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            return try DurableEventQueue(path: queueFile, maxAttempts: maxAttempts, maxQueuedEvents: maxQueuedEvents)
        } catch {
            throw AnalyticsError.configuration(
                "The analytics queue at \(queueFile) could not be opened: \(error)",
                "Point `directory` (or `queueFile`) at a writable folder.", error)
        }
    }
}
