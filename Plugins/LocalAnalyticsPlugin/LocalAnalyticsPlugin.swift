import Amplify
import AmplifyAnalyticsCore
import AmplifyConcurrency
import AmplifyEventLoop
import Foundation

/// The embedded default Analytics plugin (key `localAnalyticsPlugin`): events go into the
/// durable SQLite queue (`DurableEventQueue`) and flushes append them to a JSON-lines file.
///
/// Block, under `analytics.plugins.localAnalyticsPlugin` (every key optional):
/// `{"directory": ".amplify/analytics", "fileName": "events.jsonl", "maxFileBytes": 10485760,
///   "maxFiles": 5, "autoFlushEventsInterval": 60, "maxQueuedEvents": 100000, "maxAttempts": 5,
///   "batchSize": 500}`. `maxFileBytes` is 1 to 1099511627776 (1 TiB), `maxFiles` 0 to 1000; the
/// queue's numbers have the ranges of `AnalyticsQueueSettings`.
public final class LocalAnalyticsPlugin: AnalyticsEngineProviding {
    /// The plugin's key in the configuration file.
    public static let pluginKey: PluginKey = "localAnalyticsPlugin"

    /// `"localAnalyticsPlugin"`.
    public var key: PluginKey { Self.pluginKey }
    private let engineSlot = Locked<AnalyticsEngine?>(nil)
    private let fileSlot = Locked<String?>(nil)
    private let loop: EventLoop?
    private let hub: (any HubCategoryBehavior)?

    /// A plugin on `loop` (the Amplify loop by default).
    public init(loop: EventLoop? = nil, hub: (any HubCategoryBehavior)? = nil) {
        self.loop = loop
        self.hub = hub
    }

    /// The engine, for durable recording (`AnalyticsEngine/recordDurably(_:)`), flushing with
    /// a result, and the queue's counts; `nil` before `configure`.
    public var engine: AnalyticsEngine? { engineSlot.value }

    /// The JSON-lines file flushes append to; `nil` before `configure`.
    public var eventsFile: String? { fileSlot.value }

    /// The JSON-lines file.
    public var targetDescription: String { fileSlot.value ?? "(not configured)" }

    /// The accepted `maxFileBytes`: one byte to 1 TiB.
    public static let maxFileBytesRange: ClosedRange<Int> = 1...(1 << 40)
    /// The accepted `maxFiles` (rotated files kept beside the current one).
    public static let maxFilesRange: ClosedRange<Int> = 0...1000

    /// Reads the block, opens the queue and starts the auto-flush timer.
    /// - Throws: `ConfigurationValueError` for a bad key, `AnalyticsError` when the folder
    ///   cannot be used.
    public func configure(using configuration: Any?) throws {
        let json = configuration as? JSONValue
        let settings = try AnalyticsQueueSettings(json: json, defaultBatchSize: 500)
        let fileName = try json?.optionalString("fileName") ?? "events.jsonl"
        guard !fileName.isEmpty, !fileName.contains("/") else {
            throw ConfigurationValueError(keyPath: "fileName", expected: "a file name without '/'", found: .string(fileName))
        }
        let maxFileBytes = try json?.boundedInt("maxFileBytes", in: Self.maxFileBytesRange, unit: "bytes") ?? 10 << 20
        let maxFiles = try json?.boundedInt("maxFiles", in: Self.maxFilesRange) ?? 5
        let loop = try loop ?? Amplify.eventLoop()
        let path = (settings.directory as NSString).appendingPathComponent(fileName)
        let sender = JSONLinesSender(path: path, maxFileBytes: UInt64(clamping: maxFileBytes), maxFiles: maxFiles, fileSystem: loop.fileSystem)
        let engine = try AnalyticsEngine(
            queue: settings.openQueue(), sender: sender, batchSize: settings.batchSize,
            autoFlushInterval: settings.autoFlushEventsInterval > 0 ? .seconds(settings.autoFlushEventsInterval) : nil, loop: loop, pluginKey: key,
            dispatch: AnalyticsEngine.dispatcher(hub))
        engineSlot.withLock { $0 = engine }
        fileSlot.withLock { $0 = path }
    }

    /// Stores what was recorded, stops the timer and closes the queue (unsent events stay in it
    /// for the next run).
    public func reset() async {
        let engine = engineSlot.withLock { slot in
            defer { slot = nil }
            return slot
        }
        await engine?.close()
    }
}
