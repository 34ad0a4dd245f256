import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import AmplifyConcurrency
import Foundation

/// What the bridge has done so far.
public struct AppSyncEventsHubBridgeStatistics: Sendable, Equatable {
    /// Whether the bridge's subscription is acknowledged and events flow.
    public var connected = false
    /// Events AppSync accepted from this process.
    public var published = 0
    /// Events from other processes dispatched into the local Hub.
    public var received = 0
    /// This process's own events heard back and skipped.
    public var ownSkipped = 0
    /// Events heard twice (a publish retried after a lost answer) and dropped.
    public var duplicates = 0
    /// Gaps seen in other processes' sequences (each dispatched as `Hub.bridgeGap`).
    public var gaps = 0
    /// Events the gaps stand for: published by others, never heard here.
    public var missed = 0
    /// Events of this process dropped before AppSync accepted them: beyond `maxQueuedEvents`
    /// while AppSync was unreachable, or refused by AppSync. Receivers see them as a gap.
    public var dropped = 0
    /// Events that stayed local because their data or context could not be encoded, or their
    /// JSON is over AppSync's 240 KB.
    public var unencodable = 0
    /// Publishes that failed and were tried again.
    public var publishRetries = 0
    /// Times the subscription was lost (and the bridge reconnected).
    public var disconnections = 0
}

/// A gap in another process's events: `missed` events it published were never heard here (a
/// dropped connection, a missed message). Dispatched as `Hub.bridgeGap` on
/// ``AppSyncEventsHubBridgePlugin/statusChannel`` before the first event after the gap.
public struct HubBridgeGap: Sendable, Equatable {
    /// The sending bridge's id.
    public let origin: String
    /// How many of its events were missed.
    public let missed: Int
    /// The sequence number of the event heard after the gap.
    public let resumedAt: Int
}

/// Carries chosen Hub events between processes and machines over an AWS AppSync Events channel,
/// beside the Redis bridge (`RedisHubBridgePlugin`) and configured the same way, with no server of
/// one's own to run.
///
/// It wraps the Hub plugin in use: listeners keep working unchanged and also receive remote
/// events, whose `HubPayload.context` is a `RemoteHubEvent`. AppSync Events keeps no history, and
/// the bridge is honest about it: each event carries its sender's id and a sequence number; a
/// receiver that sees a gap dispatches one `Hub.bridgeGap` (data ``HubBridgeGap``: the sender and
/// how many were missed) instead of pretending nothing was lost. A process never hears its own
/// events back, and an event heard twice (a publish sent again after its answer was lost) is
/// dropped. Connection changes are dispatched on ``statusChannel``
/// (`AppSyncEventsHubBridge.connected` / `.disconnected`).
///
/// It talks to AppSync through the API plugin's Events client (`Amplify.API.events` by default),
/// so the Events API comes from the same configuration file. Register it with
/// `AppSyncEventsHubBridgePlugin.register()` and configure it under
/// `hub.plugins.appSyncEventsHubBridgePlugin` (see ``AppSyncEventsHubBridgeConfiguration``), or
/// start it in code with ``start(_:)``.
public final class AppSyncEventsHubBridgePlugin: HubPluginWrapper {
    /// The plugin's key in the configuration file.
    public static let pluginKey: PluginKey = "appSyncEventsHubBridgePlugin"
    /// Where the bridge reports its connection state and the gaps it sees.
    public static let statusChannel = HubChannel.custom("appSyncEventsHubBridge")
    /// The event name of a gap (data ``HubBridgeGap``).
    public static let gapEventName = "Hub.bridgeGap"

    /// `"appSyncEventsHubBridgePlugin"`.
    public var key: PluginKey { Self.pluginKey }
    /// The Hub plugin that delivers locally.
    public let wrappedPlugin: any HubCategoryPlugin
    /// This bridge's id, carried by each event it publishes.
    public let origin = UUID().uuidString
    private let events: @Sendable () -> AppSyncEvents
    private let configuration = Locked<AppSyncEventsHubBridgeConfiguration?>(nil)
    private let counters = Locked(AppSyncEventsHubBridgeStatistics())
    private let outbox = Locked(Outbox())
    private let sequences = Locked(SenderSequences())
    private let runner = Locked<Task<Void, Never>?>(nil)
    private let reportedTypes = Locked<Set<String>>([])
    private let logger = Amplify.Logging.logger(forCategory: "Hub")

    /// Events waiting to be published, in sequence order, and the sender's wake-up.
    private struct Outbox {
        var sequence = 0
        var queue: [(sequence: Int, event: JSONValue)] = []
        var wake: AsyncStream<Void>.Continuation?
    }

    /// Adds a factory for the plugin to `Amplify.registry`, so a configuration file can name it.
    /// The plugin it makes wraps the Hub plugin in use at that moment.
    public static func register() {
        Amplify.registry.register(key: pluginKey, category: .hub) { AppSyncEventsHubBridgePlugin() }
    }

    /// A bridge around `wrapped` (the Hub plugin in use by default).
    /// - Parameters:
    ///   - wrapped: the Hub plugin that delivers locally.
    ///   - events: the Events client (`Amplify.API.events` by default, looked up when the bridge starts).
    public init(wrapping wrapped: (any HubCategoryPlugin)? = nil, events: AppSyncEvents? = nil) {
        wrappedPlugin = wrapped ?? Amplify.Hub.plugin
        self.events = { events ?? Amplify.API.events }
    }

    /// What the bridge has done so far.
    public var statistics: AppSyncEventsHubBridgeStatistics { counters.value }

    /// Reads the block and starts.
    /// - Throws: `ConfigurationValueError` for a bad or missing block (`channel` is required).
    public func configure(using configuration: Any?) throws {
        guard let json = configuration as? JSONValue else {
            throw ConfigurationValueError(keyPath: "channel", expected: "an AppSync Events channel such as /default/amplify-hub", found: nil)
        }
        start(try AppSyncEventsHubBridgeConfiguration(json: json))
    }

    /// Starts with `configuration` (once; later calls do nothing): connects to the channel,
    /// reconnecting with backoff for as long as the bridge runs.
    public func start(_ configuration: AppSyncEventsHubBridgeConfiguration) {
        // One lock for both: a disconnect() never sees the configuration without its task.
        runner.withLock { runner in
            guard runner == nil else { return }
            self.configuration.withLock { $0 = configuration }
            runner = Task<Void, Never> { [weak self] in await self?.run(configuration) }
        }
    }

    // MARK: Hub behaviour

    /// Dispatches locally and, when the configuration selects the event, queues it for AppSync.
    /// Never waits.
    public func dispatch(to channel: HubChannel, payload: HubPayload) {
        wrappedPlugin.dispatch(to: channel, payload: payload)
        guard let configuration = configuration.value, configuration.selection.carries(channel, payload.eventName),
            !(payload.context is RemoteHubEvent)
        else { return }
        enqueue(channel: channel, payload: payload, limit: configuration.maxQueuedEvents)
    }

    /// Stops the bridge (events still queued are counted as dropped), then resets the wrapped plugin.
    public func reset() async {
        await disconnect()
        await wrappedPlugin.reset()
    }

    /// Stops publishing and subscribing; the local Hub keeps working, events are no longer
    /// queued, and those queued are dropped (counted). ``start(_:)`` may start the bridge again.
    public func disconnect() async {
        let task = runner.withLock { task in
            defer { task = nil }
            configuration.withLock { $0 = nil }
            return task
        }
        task?.cancel()
        await task?.value
        let dropped = outbox.withLock { outbox in
            defer { outbox.queue.removeAll() }
            outbox.wake?.finish()
            outbox.wake = nil
            return outbox.queue.count
        }
        counters.withLock {
            $0.connected = false
            $0.dropped += dropped
        }
    }

    // MARK: Sending

    private func enqueue(channel: HubChannel, payload: HubPayload, limit: Int) {
        // Encoded outside the lock; only the sequence number is added under it, so numbers follow
        // the queue's order.
        let wire: HubWireEvent
        switch HubWireEvent.encoding(channel: channel, payload: payload, origin: origin) {
        case .success(let event): wire = event
        case .failure(let error):
            reportUnencodable(payload.eventName, error.typeName, error.reason)
            return
        }
        guard case .object(var members)? = Self.json(of: wire), Self.fits(.object(members)) else {
            reportUnencodable(payload.eventName, "the event's JSON", "it is over AppSync's 240 KB per event")
            return
        }
        var overflow = 0
        outbox.withLock { outbox in
            outbox.sequence += 1
            members["seq"] = .number(Double(outbox.sequence))
            outbox.queue.append((outbox.sequence, .object(members)))
            if outbox.queue.count > limit {
                overflow = outbox.queue.count - limit
                outbox.queue.removeFirst(overflow)
            }
            outbox.wake?.yield()
        }
        if overflow > 0 {
            counters.withLock { $0.dropped += overflow }
            logger.warn("The AppSync Events Hub bridge dropped \(overflow) event(s): more than maxQueuedEvents waited for AppSync.")
        }
    }

    private static func json(of wire: HubWireEvent) -> JSONValue? {
        guard let data = try? JSONEncoder().encode(wire) else { return nil }
        return try? JSONValue(parsing: Array(data))
    }

    /// Whether the event, with the sequence number it is yet to get (at most 24 bytes), is within
    /// AppSync's 240 KB.
    private static func fits(_ json: JSONValue) -> Bool {
        ((try? json.jsonBytes())?.count ?? Int.max) + 24 <= 240 * 1024
    }

    private func reportUnencodable(_ eventName: String, _ typeName: String, _ reason: String) {
        counters.withLock { $0.unencodable += 1 }
        let first = reportedTypes.withLock { $0.insert("\(eventName)|\(typeName)").inserted }
        if first {
            logger.error(
                "\(eventName) was delivered in this process only: \(typeName) cannot cross AppSync Events (\(reason)). "
                    + "Make the type Encodable and small, or leave the event out of `eventNames`.")
        }
    }

    /// Publishes queued events, five to a message, in order, until cancelled; a failed publish
    /// is tried again after a backoff (receivers drop the repeat if the first one did arrive).
    private func send(on channel: EventsChannel, _ configuration: AppSyncEventsHubBridgeConfiguration) async {
        let (wake, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        outbox.withLock {
            $0.wake = continuation
            if !$0.queue.isEmpty { continuation.yield() }
        }
        let options = EventsOptions(authMode: configuration.authMode)
        var failures = 0
        for await _ in wake {
            while !Task.isCancelled {
                let batch = outbox.withLock { Array($0.queue.prefix(5)) }
                guard let lastSent = batch.last?.sequence else { break }
                do {
                    let result = try await channel.publish(events: batch.map(\.event), options: options)
                    failures = 0
                    // By sequence, not by count: events dropped for overflow meanwhile left the front.
                    outbox.withLock { outbox in
                        outbox.queue.removeFirst(outbox.queue.firstIndex { $0.sequence > lastSent } ?? outbox.queue.count)
                    }
                    counters.withLock {
                        $0.published += result.successful.count
                        $0.dropped += result.failed.count
                    }
                    if !result.failed.isEmpty {
                        logger.warn(
                            "AppSync refused \(result.failed.count) Hub event(s): \(result.failed.compactMap(\.message).joined(separator: "; "))")
                    }
                } catch {
                    failures += 1
                    counters.withLock { $0.publishRetries += 1 }
                    logger.info("The AppSync Events Hub bridge will publish again: \(error)")
                    try? await Task.sleep(for: Self.backoff(failures, configuration))
                }
            }
            if Task.isCancelled { break }
        }
    }

    static func backoff(_ attempt: Int, _ configuration: AppSyncEventsHubBridgeConfiguration) -> Duration {
        let exponent = min(max(attempt - 1, 0), 20)
        return min(configuration.retryDelay * (1 << exponent), configuration.maxRetryDelay)
    }

    // MARK: Receiving

    private func run(_ configuration: AppSyncEventsHubBridgeConfiguration) async {
        let options = EventsOptions(authMode: configuration.authMode)
        var failures = 0
        while !Task.isCancelled {
            do {
                let channel = try await events().connect(configuration.channel, options: options, apiName: configuration.apiName)
                failures = 0
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await self.receive(on: channel, options) }
                    group.addTask { await self.send(on: channel, configuration) }
                    await group.next()
                    group.cancelAll()
                }
                await channel.close()
            } catch {
                logger.warn("The AppSync Events Hub bridge could not connect to \(configuration.channel): \(error)")
            }
            setDisconnected("the subscription ended")
            failures += 1
            guard !Task.isCancelled else { break }
            try? await Task.sleep(for: Self.backoff(failures, configuration))
        }
    }

    /// Reads the channel until the subscription ends (it fails once reconnection gives up, or
    /// the bridge is cancelled).
    private func receive(on channel: EventsChannel, _ options: EventsOptions) async {
        do {
            for try await event in channel.subscribe(options: options) {
                switch event {
                case .connection(.connected):
                    counters.withLock { $0.connected = true }
                    wrappedPlugin.dispatch(to: Self.statusChannel, payload: HubPayload(eventName: "AppSyncEventsHubBridge.connected"))
                case .connection(.connecting):
                    setDisconnected("reconnecting")
                case .connection(.disconnected):
                    break
                case .data(let json):
                    deliver(json)
                }
            }
        } catch {
            logger.warn("The AppSync Events Hub bridge's subscription failed: \(error)")
        }
    }

    private func setDisconnected(_ reason: String) {
        let wasConnected = counters.withLock { counters in
            defer { counters.connected = false }
            if counters.connected { counters.disconnections += 1 }
            return counters.connected
        }
        if wasConnected {
            wrappedPlugin.dispatch(to: Self.statusChannel, payload: HubPayload(eventName: "AppSyncEventsHubBridge.disconnected", data: reason))
        }
    }

    private func deliver(_ json: JSONValue) {
        guard let bytes = try? json.jsonBytes(), let event = try? JSONDecoder().decode(HubWireEvent.self, from: Data(bytes)),
            event.v == HubWireEvent.version
        else {
            logger.debug("The AppSync Events Hub bridge ignored an event that is not a Hub event of a known version")
            return
        }
        guard event.origin != origin else {
            counters.withLock { $0.ownSkipped += 1 }
            return
        }
        if let sequence = event.seq {
            switch sequences.withLock({ $0.receive(sequence, from: event.origin) }) {
            case nil:
                logger.debug("The AppSync Events Hub bridge dropped an event from \(event.origin) numbered \(sequence), which no bridge sends")
                return
            case .duplicate?:
                counters.withLock { $0.duplicates += 1 }
                return
            case .gap(let missed)?:
                counters.withLock {
                    $0.gaps += 1
                    $0.missed = $0.missed.addingReportingOverflow(missed).overflow ? Int.max : $0.missed + missed
                }
                logger.warn("The AppSync Events Hub bridge missed \(missed) event(s) from \(event.origin).")
                wrappedPlugin.dispatch(
                    to: Self.statusChannel,
                    payload: HubPayload(eventName: Self.gapEventName, data: HubBridgeGap(origin: event.origin, missed: missed, resumedAt: sequence)))
            case .next?:
                break
            }
        }
        counters.withLock { $0.received += 1 }
        let (channel, payload) = event.remotePayload()
        wrappedPlugin.dispatch(to: channel, payload: payload)
    }
}
