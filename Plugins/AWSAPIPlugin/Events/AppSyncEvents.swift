import AWSPluginsCore
import Amplify
import AmplifyConcurrency
import Foundation

/// AWS AppSync Events through the API plugin: channels to publish and subscribe to, over the
/// plugin's WebSocket client on the Amplify event loop, and publishing over HTTP.
///
/// The names follow Amplify JS's `events` module:
///
/// | Amplify JS | here |
/// |---|---|
/// | `events.connect(channel, {authMode, authToken})` | ``connect(_:options:apiName:)`` |
/// | `channel.subscribe({next, error}, options)` | ``EventsChannel/subscribe(options:)`` (an `AsyncSequence`) |
/// | `channel.publish(event, options)` | ``EventsChannel/publish(_:options:)`` |
/// | `channel.close()` | ``EventsChannel/close()`` |
/// | `events.post(channel, event, options)` | ``post(_:_:options:apiName:)`` |
/// | `events.closeAll()` | ``closeAll()`` |
///
/// The API is the configuration's Events API: `custom.events` of a Gen 2 `amplify_outputs.json`
/// (named `events`), `API.Events` of Amplify JS's resources, or an `awsAPIPlugin` block (or
/// ``APIEndpointConfiguration``) with `endpointType` `Events`. Connect, subscribe and publish
/// each take their own auth mode (``EventsOptions``): API key, IAM, user pools (inside a server
/// context, that request's user), OIDC and Lambda.
///
/// Reach it as `Amplify.API.events` (the registered `AWSAPIPlugin`'s) or a plugin's ``AWSAPIPlugin/events``.
public struct AppSyncEvents: Sendable {
    private let plugin: @Sendable () throws -> AWSAPIPlugin

    init(plugin: @escaping @Sendable () throws -> AWSAPIPlugin) {
        self.plugin = plugin
    }

    /// Opens (or shares) the WebSocket for `channel` and returns once AppSync has acknowledged it.
    /// - Parameters:
    ///   - channel: `/namespace/a/b` (a trailing `/*` subscribes to every channel below; at most
    ///     five segments of 1 to 50 of `A-Z a-z 0-9 -`).
    ///   - options: the connect auth mode (the API's default when `nil`).
    ///   - apiName: the Events API (the only one when `nil`).
    /// - Throws: `APIError` for a bad channel, no Events API, authorization that cannot be had,
    ///   or a connection AppSync refuses or that fails.
    public func connect(_ channel: String, options: EventsOptions? = nil, apiName: String? = nil) async throws -> EventsChannel {
        let plugin = try plugin()
        let path = try EventsChannelPath.validated(channel, wildcardAllowed: true)
        let (clients, endpoint) = try plugin.eventsClients(apiName: apiName)
        let route = AppSyncEventsClients.Route(
            endpoint: endpoint, mode: try AWSAPIPlugin.mode(of: options?.authMode, endpoint: endpoint), token: options?.authToken)
        let made = EventsChannel(path: path, route: route, clients: clients)
        try await clients.hold(route, channelId: made.id)
        return made
    }

    /// Publishes one event to `channel` over HTTP (`POST /event`).
    /// - Parameters:
    ///   - channel: the channel (no wildcard).
    ///   - event: the event, any JSON value of at most 240 KB.
    ///   - options: the publish auth mode.
    ///   - apiName: the Events API (the only one when `nil`).
    /// - Returns: which events AppSync accepted and which it refused.
    /// - Throws: `APIError` for a bad channel or event, an HTTP status outside 2xx
    ///   (`httpStatusError`, the body has AppSync's errors), or a network failure.
    @discardableResult
    public func post(_ channel: String, _ event: JSONValue, options: EventsOptions? = nil, apiName: String? = nil) async throws
        -> EventsPublishResult
    {
        try await post(channel, events: [event], options: options, apiName: apiName)
    }

    /// Publishes up to five events to `channel` over HTTP (`POST /event`) in one request.
    /// - Throws: as ``post(_:_:options:apiName:)``; more than five events is an error before
    ///   anything is sent.
    @discardableResult
    public func post(_ channel: String, events: [JSONValue], options: EventsOptions? = nil, apiName: String? = nil) async throws
        -> EventsPublishResult
    {
        let plugin = try plugin()
        let path = try EventsChannelPath.validated(channel, wildcardAllowed: false)
        let texts = try EventsPublishLimits.encoded(events)
        return try await plugin.postEvents(path, texts, options: options, apiName: apiName)
    }

    /// Closes every Events WebSocket of the plugin: subscriptions end, waiting publishes fail.
    public func closeAll() async {
        guard let plugin = try? plugin() else { return }
        await plugin.closeAllEvents()
    }
}

/// A channel of an Events API, connected (Amplify JS's `EventsChannel`): subscribe to it,
/// publish to it over the shared WebSocket, close it.
public final class EventsChannel: Sendable {
    /// The channel's path, as sent (`/namespace/…`).
    public let path: String
    let id = UUID().uuidString
    private let route: AppSyncEventsClients.Route
    private let clients: AppSyncEventsClients
    private let subscriptions = Locked<Set<String>>([])
    private let isClosed = Locked(false)

    init(path: String, route: AppSyncEventsClients.Route, clients: AppSyncEventsClients) {
        self.path = path
        self.route = route
        self.clients = clients
    }

    /// Subscribes to the channel. The sequence yields `.connection(.connecting)`, then
    /// `.connection(.connected)` once AppSync accepted the subscription, then each event; after
    /// a drop `.connecting` again while it reconnects and subscribes again (events published in
    /// that gap are not delivered: AppSync Events keeps no history). Cancelling the iteration
    /// unsubscribes. The sequence fails with `APIError` when AppSync refuses the subscription,
    /// the reconnection attempts run out, or authorization cannot be had; it finishes when the
    /// channel closes. Elements are produced on the Amplify event loop and read wherever the
    /// caller iterates.
    /// - Parameter options: the subscribe auth mode (the API's default when `nil`).
    public func subscribe(options: EventsOptions? = nil) -> AmplifyAsyncThrowingSequence<EventsSubscriptionEvent> {
        guard !isClosed.value else {
            let sequence = AmplifyAsyncThrowingSequence<EventsSubscriptionEvent>()
            sequence.fail(APIError.operationError("The channel \(path) is closed.", "Connect to it again."))
            return sequence
        }
        let route = self.route
        let sources = clients.sources
        let subscriptions = self.subscriptions
        let isClosed = self.isClosed
        let id = UUID().uuidString.lowercased()
        subscriptions.withLock { _ = $0.insert(id) }
        let sequence = clients.subscribe(
            route, id: id, channel: path,
            authorization: {
                try await PreparedAuthorization.prepare(
                    mode: try AWSAPIPlugin.mode(of: options?.authMode, endpoint: route.endpoint), endpoint: route.endpoint, sources: sources,
                    token: options?.authToken)
            },
            isWanted: { !isClosed.value }, onEnd: { id in subscriptions.withLock { _ = $0.remove(id) } })
        return sequence
    }

    /// Publishes one event over the channel's WebSocket.
    /// - Parameters:
    ///   - event: any JSON value of at most 240 KB.
    ///   - options: the publish auth mode (the API's default when `nil`).
    /// - Returns: which events AppSync accepted and which it refused.
    /// - Throws: `APIError` for a wildcard channel, an event over 240 KB, AppSync's refusal
    ///   (`publish_error`), no answer within the acknowledgement timeout (15 s) of the call (not
    ///   sent because the socket is down, or sent and not answered), or a connection lost before
    ///   AppSync answered (the event may or may not have been delivered; the error says so).
    @discardableResult
    public func publish(_ event: JSONValue, options: EventsOptions? = nil) async throws -> EventsPublishResult {
        try await publish(events: [event], options: options)
    }

    /// Publishes up to five events in one `publish` message.
    /// - Throws: as ``publish(_:options:)``; more than five events is an error before anything is sent.
    @discardableResult
    public func publish(events: [JSONValue], options: EventsOptions? = nil) async throws -> EventsPublishResult {
        guard !isClosed.value else { throw APIError.operationError("The channel \(path) is closed.", "Connect to it again.") }
        let channel = try EventsChannelPath.validated(path, wildcardAllowed: false)
        let texts = try EventsPublishLimits.encoded(events)
        let authorization = try await PreparedAuthorization.prepare(
            mode: try AWSAPIPlugin.mode(of: options?.authMode, endpoint: route.endpoint), endpoint: route.endpoint, sources: clients.sources,
            token: options?.authToken)
        return try await clients.publish(route, channel: channel, events: texts, authorization: authorization)
    }

    /// Ends the channel's subscriptions (their sequences finish) and lets go of the WebSocket,
    /// which closes when no other channel holds it. Closing twice does nothing.
    public func close() async {
        guard
            isClosed.withLock({ flag in
                defer { flag = true }
                return !flag
            })
        else { return }
        await clients.release(route, channelId: id, subscriptions: Array(subscriptions.value))
    }

    /// A channel dropped without ``close()`` lets go of the WebSocket; its subscriptions go on
    /// until their iteration ends (`connect(…).subscribe()` in one expression keeps working).
    deinit {
        guard !isClosed.value else { return }
        let clients = self.clients
        let route = self.route
        let id = self.id
        Task { await clients.release(route, channelId: id, subscriptions: []) }
    }
}

extension AWSAPIPlugin {
    /// AppSync Events through this plugin (see ``AppSyncEvents``).
    public var events: AppSyncEvents {
        AppSyncEvents { [self] in self }
    }
}

extension APICategory {
    /// AppSync Events through the registered `AWSAPIPlugin` (see ``AppSyncEvents``); its calls
    /// throw `APIError.invalidConfiguration` when no such plugin is added.
    public var events: AppSyncEvents {
        AppSyncEvents { [self] in
            guard let plugin = try? getPlugin(for: AWSAPIPlugin.pluginKey) as? AWSAPIPlugin else {
                throw APIError.invalidConfiguration(
                    "AppSync Events needs the AWSAPIPlugin, and none is added to Amplify.API.",
                    "Call `try Amplify.add(plugin: AWSAPIPlugin())` before `Amplify.configure()`.")
            }
            return plugin
        }
    }
}
