import Amplify
import Foundation

/// The queue and flush settings every analytics plugin block of this package shares:
///
/// `autoFlushEventsInterval` (seconds, default 60; 0 turns auto-flush off), `maxQueuedEvents`
/// (default 100 000), `maxAttempts` (refusals before an event is set aside, default 5),
/// `batchSize` (records per delivery, default 100), `queueFile` (the SQLite file, default
/// `analytics-queue.sqlite` in `directory`), `directory` (default `.amplify/analytics`, relative
/// to the configuration file).
public struct AnalyticsQueueSettings: Sendable, Equatable {
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
        autoFlushEventsInterval = try Self.count(json, "autoFlushEventsInterval", minimum: 0) ?? 60
        maxQueuedEvents = try Self.count(json, "maxQueuedEvents", minimum: 1) ?? 100_000
        maxAttempts = try Self.count(json, "maxAttempts", minimum: 1) ?? 5
        batchSize = try Self.count(json, "batchSize", minimum: 1) ?? defaultBatchSize
        directory = Amplify.resolvePath(try json.optionalString("directory") ?? ".amplify/analytics")
        queueFile = try json.optionalString("queueFile").map(Amplify.resolvePath) ?? (directory as NSString).appendingPathComponent("analytics-queue.sqlite")
    }

    private static func count(_ json: JSONValue, _ key: String, minimum: Int) throws(ConfigurationValueError) -> Int? {
        guard let value = try json.optionalInt(key) else { return nil }
        guard value >= minimum else {
            throw ConfigurationValueError(keyPath: key, expected: "an integer of at least \(minimum)", found: .number(Double(value)))
        }
        return value
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
