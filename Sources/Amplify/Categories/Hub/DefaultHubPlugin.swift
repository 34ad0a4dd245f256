import AmplifyEventLoop
import CoreMetrics
import Foundation
import Synchronization

/// The Hub plugin that is there from the start: an ordered, lossless dispatcher on the Amplify
/// event loop (see ``HubCategoryBehavior`` for the contract).
///
/// Configuration block (optional), under `hub.plugins.defaultHubPlugin`:
/// `{"slowListenerThresholdMilliseconds": 50}` — a listener call that holds the loop longer is
/// reported once through the Logging category.
public final class DefaultHubPlugin: HubCategoryPlugin {
    /// The plugin's key in the configuration file.
    public static let pluginKey: PluginKey = "defaultHubPlugin"
    /// The default slow-listener threshold.
    public static let defaultSlowListenerThreshold: Duration = .milliseconds(50)

    /// `"defaultHubPlugin"`.
    public var key: PluginKey { Self.pluginKey }

    private let dispatcher: HubDispatcher?

    /// A Hub on `loop` (the shared Amplify loop by default), reporting its metrics
    /// (``AmplifyMetrics``) to `metricsFactory` (default: `MetricsSystem.factory`, looked at
    /// once, now; with no backend bootstrapped the Hub does no metric work).
    ///
    /// If the loop cannot be used (it was shut down), the plugin logs the error and drops what
    /// is dispatched to it.
    public init(loop: EventLoop? = nil, metricsFactory: (any MetricsFactory)? = nil) {
        do {
            let loop = try loop ?? AmplifyRuntime.shared.eventLoop()
            dispatcher = try HubDispatcher(loop: loop, slowListenerThreshold: Self.defaultSlowListenerThreshold, metricsFactory: metricsFactory)
        } catch {
            Amplify.Logging.logger(forCategory: "Hub").error("The Hub could not start on the event loop: \(error)")
            dispatcher = nil
        }
    }

    /// Whether the plugin is closed: reset, or its loop shut down (it delivers nothing more).
    public var isClosed: Bool { dispatcher?.isClosed ?? true }

    /// The loop listeners run on (`nil` if the plugin could not start).
    public var loop: EventLoop? { dispatcher?.loop }

    /// How long a listener call may hold the loop before it is reported.
    public var slowListenerThreshold: Duration {
        get { dispatcher?.monitor.threshold ?? Self.defaultSlowListenerThreshold }
        set { dispatcher?.monitor.threshold = newValue }
    }

    /// Reads `slowListenerThresholdMilliseconds` from the plugin's block.
    /// - Throws: ``ConfigurationValueError`` if it is not a positive number.
    public func configure(using configuration: Any?) throws {
        guard let json = configuration as? JSONValue else { return }
        if let milliseconds = try json.optionalDouble("slowListenerThresholdMilliseconds") {
            guard milliseconds > 0 else {
                throw ConfigurationValueError(
                    keyPath: "slowListenerThresholdMilliseconds", expected: "a positive number of milliseconds",
                    found: .number(milliseconds))
            }
            slowListenerThreshold = .nanoseconds(Int64(milliseconds * 1_000_000))
        }
    }

    /// Delivers everything already dispatched, ends every listener and stream, stops the
    /// watchdog and closes the loop handle.
    public func reset() async {
        await dispatcher?.close()
    }

    /// See ``HubCategoryBehavior/dispatch(to:payload:)``.
    public func dispatch(to channel: HubChannel, payload: HubPayload) {
        dispatcher?.dispatch(to: channel, payload: payload)
    }

    /// See ``HubCategoryBehavior/listen(to:isIncluded:file:line:listener:)``.
    @discardableResult
    public func listen(
        to channel: HubChannel, isIncluded filter: HubFilter?, file: String, line: Int,
        listener: @escaping HubListener
    ) -> UnsubscribeToken {
        guard let dispatcher else { return UnsubscribeToken(channel: channel, id: UUID()) }
        return dispatcher.listen(to: channel, eventName: nil, filter: filter, file: file, line: line, listener: listener)
    }

    /// See ``HubCategoryBehavior/listen(to:eventName:file:line:listener:)``.
    @discardableResult
    public func listen(
        to channel: HubChannel, eventName: String, file: String, line: Int,
        listener: @escaping HubListener
    ) -> UnsubscribeToken {
        guard let dispatcher else { return UnsubscribeToken(channel: channel, id: UUID()) }
        return dispatcher.listen(to: channel, eventName: eventName, filter: nil, file: file, line: line, listener: listener)
    }

    /// See ``HubCategoryBehavior/removeListener(_:)``.
    public func removeListener(_ token: UnsubscribeToken) {
        dispatcher?.removeListener(token)
    }

    /// See ``HubCategoryBehavior/events(on:isIncluded:bufferingPolicy:)``.
    public func events(
        on channel: HubChannel, isIncluded filter: HubFilter?, bufferingPolicy: HubEventStream.BufferingPolicy
    ) -> HubEventStream {
        let (stream, continuation) = AsyncStream<HubPayload>.makeStream(bufferingPolicy: bufferingPolicy.streamPolicy)
        let drops = DropCounter()
        guard let dispatcher else {
            continuation.finish()
            return HubEventStream(stream: stream, drops: drops)
        }
        let token = dispatcher.listen(
            to: channel, eventName: nil, filter: filter, file: "HubEventStream", line: 0,
            finish: { continuation.finish() }
        ) { payload in
            if case .dropped = continuation.yield(payload), drops.record() {
                Amplify.Logging.logger(forCategory: "Hub").warn(
                    "A Hub event stream on channel '\(channel.name)' dropped a payload: its consumer is behind and its buffering policy is \(bufferingPolicy).")
            }
        }
        continuation.onTermination = { [weak dispatcher] _ in dispatcher?.removeListener(token) }
        return HubEventStream(stream: stream, drops: drops)
    }

    /// See ``HubCategoryBehavior/flush()``.
    public func flush() async {
        await dispatcher?.flush()
    }

    /// The most payloads that have waited in the queue at once (dispatched, not yet delivered):
    /// the Hub's memory use beyond its listeners is this many entries.
    public var peakQueueDepth: Int { dispatcher?.peakQueueDepth ?? 0 }

    /// How many listeners (and streams) are registered.
    public var listenerCount: Int { dispatcher?.listenerCount ?? 0 }
}
