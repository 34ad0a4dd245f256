import Amplify
import Foundation

/// The `hub.plugins.redisHubBridgePlugin` block:
///
/// ```json
/// {
///   "url": "redis://127.0.0.1:6379",
///   "mode": "streams",
///   "channels": ["auth"],
///   "eventNames": ["Auth.signedIn", "Auth.signedOut", "Auth.sessionExpired", "Auth.userDeleted"],
///   "key": "amplify:hub",
///   "consumerGroup": "orders-service-1",
///   "maxStreamLength": 100000,
///   "maxQueuedEvents": 100000
/// }
/// ```
///
/// Only `url` is required. `mode` is `pubsub` (at most once, lowest latency) or `streams` (at
/// least once through a consumer group; survives a bridge restart). `eventNames` defaults to the
/// Auth lifecycle events; `["*"]` forwards every event of the chosen channels. In streams mode
/// each process needs its own stable `consumerGroup` (it defaults to `amplify-<host name>`), so
/// that a restarted process resumes where it stopped.
///
/// Ranges (``Limits``), checked when the block is read: the URL's port 1 to 65535,
/// `maxStreamLength` 1 to 1000000000, `maxQueuedEvents` 1 to 100000000,
/// `reconnectDelayMilliseconds` and `maxReconnectDelayMilliseconds` 1 to 3600000 (one hour).
public struct RedisHubBridgeConfiguration: Sendable, Equatable {
    /// The accepted range of each numeric setting.
    public enum Limits {
        /// `maxStreamLength`.
        public static let maxStreamLength: ClosedRange<Int> = 1...1_000_000_000
        /// `maxQueuedEvents`.
        public static let maxQueuedEvents: ClosedRange<Int> = 1...100_000_000
        /// `reconnectDelayMilliseconds` and `maxReconnectDelayMilliseconds`: up to one hour.
        public static let reconnectDelayMilliseconds: ClosedRange<Int> = 1...3_600_000
    }

    /// Delivery guarantees.
    public enum Mode: String, Sendable {
        /// Redis pub/sub: at most once, lowest latency; what a process misses while disconnected
        /// is gone.
        case pubsub
        /// A Redis stream read through the process's consumer group: at least once; entries
        /// published while a process was away are read when it is back.
        case streams
    }

    /// The Auth lifecycle events forwarded when the block names none.
    public static let defaultEventNames = HubBridgeSelection.defaultEventNames

    /// Redis's host.
    public var host: String
    /// Redis's port.
    public var port: Int
    /// Delivery mode.
    public var mode: Mode
    /// The channels whose events are forwarded and received.
    public var channels: [HubChannel]
    /// The event names forwarded (`nil`: every event of the channels).
    public var eventNames: Set<String>?
    /// The pub/sub channel or stream key.
    public var key: String
    /// This process's consumer group (streams mode).
    public var consumerGroup: String
    /// The stream is trimmed to about this many entries.
    public var maxStreamLength: Int
    /// Events kept for sending while Redis is unreachable; beyond it the oldest are dropped
    /// (counted and logged).
    public var maxQueuedEvents: Int
    /// The first reconnection delay; it doubles per failed attempt up to ``maxReconnectDelay``.
    /// The same backoff paces the retries while Redis answers with error replies (`-LOADING`,
    /// `-BUSY`) on a live connection.
    public var reconnectDelay: Duration
    /// The longest reconnection delay.
    public var maxReconnectDelay: Duration

    /// A configuration in code.
    public init(
        host: String = "127.0.0.1", port: Int = 6379, mode: Mode = .pubsub, channels: [HubChannel] = [.auth],
        eventNames: Set<String>? = Set(Self.defaultEventNames), key: String = "amplify:hub",
        consumerGroup: String = "amplify-\(ProcessInfo.processInfo.hostName)", maxStreamLength: Int = 100_000,
        maxQueuedEvents: Int = 100_000, reconnectDelay: Duration = .milliseconds(100), maxReconnectDelay: Duration = .seconds(5)
    ) {
        self.host = host
        self.port = port
        self.mode = mode
        self.channels = channels
        self.eventNames = eventNames
        self.key = key
        self.consumerGroup = consumerGroup
        self.maxStreamLength = maxStreamLength
        self.maxQueuedEvents = maxQueuedEvents
        self.reconnectDelay = reconnectDelay
        self.maxReconnectDelay = maxReconnectDelay
    }

    /// Reads the plugin's block.
    /// - Throws: `ConfigurationValueError` naming the key that is missing or wrong.
    public init(json: JSONValue) throws(ConfigurationValueError) {
        self.init()
        let url = try json.requiredString("url")
        guard let parsed = URLComponents(string: url), parsed.scheme == "redis", let host = parsed.host, !host.isEmpty else {
            throw ConfigurationValueError(keyPath: "url", expected: "a redis://host:port URL", found: .string(url))
        }
        self.host = host
        port = parsed.port ?? 6379
        guard (1...65_535).contains(port) else {
            throw ConfigurationValueError(keyPath: "url", expected: "a redis://host:port URL with a port from 1 to 65535", found: .string(url))
        }
        if let mode = try json.optionalString("mode") {
            guard let known = Mode(rawValue: mode) else {
                throw ConfigurationValueError(keyPath: "mode", expected: "\"pubsub\" or \"streams\"", found: .string(mode))
            }
            self.mode = known
        }
        let selection = try HubBridgeSelection(json: json)
        channels = selection.channels
        eventNames = selection.eventNames
        key = try json.optionalString("key") ?? key
        consumerGroup = try json.optionalString("consumerGroup") ?? consumerGroup
        maxStreamLength = try json.boundedInt("maxStreamLength", in: Limits.maxStreamLength) ?? maxStreamLength
        maxQueuedEvents = try json.boundedInt("maxQueuedEvents", in: Limits.maxQueuedEvents) ?? maxQueuedEvents
        if let milliseconds = try json.boundedInt("reconnectDelayMilliseconds", in: Limits.reconnectDelayMilliseconds, unit: "milliseconds") {
            reconnectDelay = .milliseconds(milliseconds)
        }
        if let milliseconds = try json.boundedInt("maxReconnectDelayMilliseconds", in: Limits.reconnectDelayMilliseconds, unit: "milliseconds") {
            maxReconnectDelay = .milliseconds(milliseconds)
        }
    }

    /// Whether an event on `channel` named `eventName` is forwarded.
    func forwards(_ channel: HubChannel, _ eventName: String) -> Bool {
        HubBridgeSelection(channels: channels, eventNames: eventNames).carries(channel, eventName)
    }
}
