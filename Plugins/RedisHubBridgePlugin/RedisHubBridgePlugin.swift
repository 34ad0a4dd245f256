import Amplify
import AmplifyConcurrency
import AmplifyEventLoop
import AmplifyRedis
import Foundation

/// What the bridge has done so far.
public struct RedisHubBridgeStatistics: Sendable, Equatable {
    /// Whether the bridge works: both Redis connections are up, Redis answered (it is not still
    /// loading its data), and the first read worked. A wait through `-BUSY` on a live connection
    /// leaves it `true`.
    public var connected = false
    /// Events Redis accepted from this process.
    public var published = 0
    /// Events from other processes dispatched into the local Hub.
    public var received = 0
    /// This process's own events read back from Redis and skipped.
    public var ownSkipped = 0
    /// Events that stayed local because their data or context could not be encoded.
    public var unencodable = 0
    /// Events dropped: beyond `maxQueuedEvents` while Redis was unreachable or refusing them
    /// (error replies), or queued at reset. Nothing else loses an event.
    public var dropped = 0
    /// Events of a wire-format version this bridge does not know.
    public var unknownVersion = 0
    /// Times the connection was lost.
    public var disconnections = 0
    /// Commands Redis answered with an error reply instead of doing the work (`-BUSY` while a
    /// script runs, `-LOADING` while it replays its data, …): each is tried again after the
    /// backoff, its events kept.
    public var refusals = 0
}

/// Forwards selected Hub events to Redis and dispatches what other processes publish there into
/// the local Hub, through hiredis's asynchronous API driven by the Amplify event loop (a
/// `LoopPoll` on its socket, no thread of its own).
///
/// It wraps the Hub plugin in use (the default one): listeners keep working unchanged and also
/// receive remote events, whose `HubPayload.context` is a `RemoteHubEvent`. A process never
/// receives its own events back. Payload data and context cross as JSON (see
/// `HubPayloadCodec`); a payload that cannot be encoded is delivered locally, counted in
/// ``statistics`` and logged, never dropped silently. If Redis is down at start, restarts or
/// becomes unreachable, the local Hub keeps working and the bridge reconnects with backoff,
/// keeping up to `maxQueuedEvents` events to send when it is back. An error reply (`-LOADING`
/// while Redis replays its data after a restart, `-BUSY` while a script runs) is not an
/// acknowledgement: the event is kept and sent again once Redis answers. Connection changes are
/// dispatched on the channel ``statusChannel`` (`RedisHubBridge.connected` /
/// `RedisHubBridge.disconnected`, data the reason).
///
/// Register it with `RedisHubBridgePlugin.register()` and configure it under
/// `hub.plugins.redisHubBridgePlugin` (see ``RedisHubBridgeConfiguration``), or start it in code
/// with ``start(_:)``.
public final class RedisHubBridgePlugin: HubPluginWrapper {
    /// The plugin's key in the configuration file.
    public static let pluginKey: PluginKey = "redisHubBridgePlugin"
    /// Where the bridge reports its connection state.
    public static let statusChannel = HubChannel.custom("redisHubBridge")

    /// `"redisHubBridgePlugin"`.
    public var key: PluginKey { Self.pluginKey }
    /// The Hub plugin that delivers locally.
    public let wrappedPlugin: any HubCategoryPlugin
    /// This bridge's id, carried by each event it publishes.
    public let origin = UUID().uuidString
    private let loop: EventLoop
    private let link = Locked<LoopBound<BridgeLink>?>(nil)
    private let configuration = Locked<RedisHubBridgeConfiguration?>(nil)
    private let counters = Locked(RedisHubBridgeStatistics())
    private let reportedTypes = Locked<Set<String>>([])

    /// Adds a factory for the plugin to `Amplify.registry`, so a configuration file can name it.
    /// The plugin it makes wraps the Hub plugin in use at that moment.
    public static func register() {
        Amplify.registry.register(key: pluginKey, category: .hub) { try RedisHubBridgePlugin() }
    }

    /// A bridge around `wrapped` (the Hub plugin in use by default), on `wrapped`'s loop.
    /// - Throws: `EventLoopError` if the shared loop cannot start.
    public init(wrapping wrapped: (any HubCategoryPlugin)? = nil, loop: EventLoop? = nil) throws {
        let wrapped = wrapped ?? Amplify.Hub.plugin
        wrappedPlugin = wrapped
        if let loop {
            self.loop = loop
        } else if let hubLoop = (wrapped as? DefaultHubPlugin)?.loop {
            self.loop = hubLoop
        } else {
            self.loop = try Amplify.eventLoop()
        }
    }

    /// What the bridge has done so far.
    public var statistics: RedisHubBridgeStatistics { counters.value }

    /// Reads the block and connects.
    /// - Throws: `ConfigurationValueError` for a bad block (a missing block is an error too:
    ///   the bridge needs at least `url`).
    public func configure(using configuration: Any?) throws {
        guard let json = configuration as? JSONValue else {
            throw ConfigurationValueError(keyPath: "url", expected: "a redis://host:port URL", found: nil)
        }
        try start(RedisHubBridgeConfiguration(json: json))
    }

    /// Connects with `configuration` (once; later calls do nothing).
    /// - Throws: `EventLoopError/shutDown` if the loop is gone.
    public func start(_ configuration: RedisHubBridgeConfiguration) throws {
        let isNew = self.configuration.withLock { current -> Bool in
            guard current == nil else { return false }
            current = configuration
            return true
        }
        guard isNew else { return }
        let made = LoopBound(
            BridgeLink(
                configuration: configuration, loop: loop,
                deliver: { [weak self] event, entryId in self?.deliver(event, entryId: entryId) },
                report: { [weak self] report in self?.handle(report) }), loop: loop)
        link.withLock { $0 = made }
        try loop.execute { made.value.start() }
    }

    // MARK: Hub behaviour

    /// Dispatches locally and, when the configuration selects the event, to Redis. Never waits.
    public func dispatch(to channel: HubChannel, payload: HubPayload) {
        wrappedPlugin.dispatch(to: channel, payload: payload)
        guard let configuration = configuration.value, configuration.forwards(channel, payload.eventName),
            !(payload.context is RemoteHubEvent), let link = link.value
        else { return }
        guard let message = encode(channel: channel, payload: payload) else { return }
        do {
            try loop.execute { link.value.publish(message) }
        } catch {
            counters.withLock { $0.dropped += 1 }
        }
    }

    /// Closes the Redis connections (events still waiting for Redis are counted as dropped),
    /// then resets the wrapped plugin.
    public func reset() async {
        await disconnect()
        await wrappedPlugin.reset()
    }

    /// Closes the Redis connections and stops reconnecting; the local Hub keeps working.
    public func disconnect() async {
        guard
            let current = link.withLock({ link -> LoopBound<BridgeLink>? in
                defer { link = nil }
                return link
            })
        else { return }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            do {
                try loop.execute {
                    current.value.close()
                    done.resume()
                }
            } catch {
                done.resume()
            }
        }
        counters.withLock { $0.connected = false }
    }

    // MARK: Wire

    private func encode(channel: HubChannel, payload: HubPayload) -> [UInt8]? {
        switch HubWireEvent.encoding(channel: channel, payload: payload, origin: origin) {
        case .failure(let error):
            reportUnencodable(payload.eventName, error)
            return nil
        case .success(let event):
            return (try? JSONEncoder().encode(event)).map(Array.init)
        }
    }

    private func reportUnencodable(_ eventName: String, _ error: HubPayloadEncodingError) {
        counters.withLock { $0.unencodable += 1 }
        let first = reportedTypes.withLock { $0.insert("\(eventName)|\(error.typeName)").inserted }
        if first {
            Amplify.Logging.logger(forCategory: "Hub").error(
                "\(eventName) was delivered in this process only: its payload of type \(error.typeName) cannot cross Redis (\(error.reason)). "
                    + "Make the type Encodable, or leave the event out of `eventNames`.")
        }
    }

    /// Loop thread: an event read from Redis.
    private func deliver(_ event: HubWireEvent, entryId: String?) {
        guard event.v == HubWireEvent.version else {
            counters.withLock { $0.unknownVersion += 1 }
            return
        }
        guard event.origin != origin else {
            counters.withLock { $0.ownSkipped += 1 }
            return
        }
        counters.withLock { $0.received += 1 }
        let (channel, payload) = event.remotePayload(streamEntryId: entryId)
        wrappedPlugin.dispatch(to: channel, payload: payload)
    }

    /// Loop thread: what the link reports.
    private func handle(_ report: BridgeLink.Report) {
        switch report {
        case .connected:
            counters.withLock { $0.connected = true }
            wrappedPlugin.dispatch(to: Self.statusChannel, payload: HubPayload(eventName: "RedisHubBridge.connected"))
        case .disconnected(let reason):
            counters.withLock {
                $0.connected = false
                $0.disconnections += 1
            }
            Amplify.Logging.logger(forCategory: "Hub").warn("The Redis Hub bridge lost Redis (\(reason)); reconnecting with backoff.")
            wrappedPlugin.dispatch(to: Self.statusChannel, payload: HubPayload(eventName: "RedisHubBridge.disconnected", data: reason))
        case .published:
            counters.withLock { $0.published += 1 }
        case .refused:
            counters.withLock { $0.refusals += 1 }
        case .dropped(let count):
            counters.withLock { $0.dropped += count }
            Amplify.Logging.logger(forCategory: "Hub").warn("The Redis Hub bridge dropped \(count) event(s) that could not be sent.")
        }
    }
}
