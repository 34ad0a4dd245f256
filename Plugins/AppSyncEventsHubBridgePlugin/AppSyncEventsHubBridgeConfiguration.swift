import AWSPluginsCore
import Amplify

/// The `hub.plugins.appSyncEventsHubBridgePlugin` block:
///
/// ```json
/// {
///   "channel": "/default/amplify-hub",
///   "apiName": "events",
///   "authMode": "API_KEY",
///   "channels": ["auth"],
///   "eventNames": ["Auth.signedIn", "Auth.signedOut", "Auth.sessionExpired", "Auth.userDeleted"],
///   "maxQueuedEvents": 10000
/// }
/// ```
///
/// Only `channel` is required: the AppSync Events channel the processes share (no wildcard).
/// `apiName` is the Events API of the API plugin (the only one when absent); `authMode` is used
/// to connect, subscribe and publish (the API's default when absent). `channels` and `eventNames`
/// choose the Hub events carried, as for the Redis bridge (`HubBridgeSelection`).
/// `maxQueuedEvents` (1 to 10,000,000) bounds the events waiting to be published while AppSync
/// is unreachable; beyond it the oldest are dropped (counted, logged, and seen by receivers as a gap).
public struct AppSyncEventsHubBridgeConfiguration: Sendable, Equatable {
    /// The accepted range of `maxQueuedEvents`.
    public static let maxQueuedEventsRange: ClosedRange<Int> = 1...10_000_000

    /// The AppSync Events channel the processes share.
    public var channel: String
    /// The Events API's name in the API plugin (`nil`: the only one).
    public var apiName: String?
    /// The auth mode to connect, subscribe and publish with (`nil`: the API's default).
    public var authMode: AWSAuthorizationType?
    /// The Hub events carried.
    public var selection: HubBridgeSelection
    /// Events kept for publishing while AppSync is unreachable.
    public var maxQueuedEvents: Int
    /// The first delay before publishing again after a failure; it doubles up to ``maxRetryDelay``.
    public var retryDelay: Duration
    /// The longest delay between publish attempts.
    public var maxRetryDelay: Duration

    /// A configuration in code.
    /// - Parameters:
    ///   - channel: the AppSync Events channel the processes share.
    ///   - apiName: the Events API's name (`nil`: the only one).
    ///   - authMode: the auth mode (`nil`: the API's default).
    ///   - selection: the Hub events carried.
    ///   - maxQueuedEvents: events kept while AppSync is unreachable (brought into 1 to 10,000,000).
    ///   - retryDelay: the first delay before publishing again after a failure.
    ///   - maxRetryDelay: the longest delay between publish attempts.
    public init(
        channel: String = "/default/amplify-hub", apiName: String? = nil, authMode: AWSAuthorizationType? = nil,
        selection: HubBridgeSelection = HubBridgeSelection(), maxQueuedEvents: Int = 10_000, retryDelay: Duration = .milliseconds(100),
        maxRetryDelay: Duration = .seconds(5)
    ) {
        self.channel = channel
        self.apiName = apiName
        self.authMode = authMode
        self.selection = selection
        self.maxQueuedEvents = min(max(maxQueuedEvents, Self.maxQueuedEventsRange.lowerBound), Self.maxQueuedEventsRange.upperBound)
        self.retryDelay = max(retryDelay, .milliseconds(1))
        self.maxRetryDelay = max(maxRetryDelay, self.retryDelay)
    }

    /// Reads the plugin's block.
    /// - Throws: `ConfigurationValueError` naming the key that is missing or wrong.
    public init(json: JSONValue) throws(ConfigurationValueError) {
        self.init()
        channel = try json.requiredString("channel")
        guard channel.contains("/"), !channel.hasSuffix("*") else {
            throw ConfigurationValueError(
                keyPath: "channel", expected: "an AppSync Events channel such as /default/amplify-hub (no wildcard)", found: .string(channel))
        }
        apiName = try json.optionalString("apiName")
        if let mode = try json.optionalString("authMode") {
            guard let known = AWSAuthorizationType(rawValue: mode) else {
                let modes = AWSAuthorizationType.allCases.map(\.rawValue).joined(separator: ", ")
                throw ConfigurationValueError(keyPath: "authMode", expected: "one of \(modes)", found: .string(mode))
            }
            authMode = known
        }
        selection = try HubBridgeSelection(json: json)
        maxQueuedEvents = try json.boundedInt("maxQueuedEvents", in: Self.maxQueuedEventsRange) ?? maxQueuedEvents
    }
}
