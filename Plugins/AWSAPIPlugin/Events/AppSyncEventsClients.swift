import AWSPluginsCore
import Amplify
import AmplifyConcurrency
import AmplifyEventLoop
import Foundation

/// The plugin's Events connections: one per API, connect auth mode and caller-given token,
/// shared by every channel of that triple, made on first use and closed when nothing holds it.
final class AppSyncEventsClients: Sendable {
    let loop: EventLoop
    let sources: APIAuthSources
    let options: AWSAPIPlugin.Options
    private let registry = EventsRegistry()
    private let isShutDown = Locked(false)

    init(loop: EventLoop, sources: APIAuthSources, options: AWSAPIPlugin.Options) {
        self.loop = loop
        self.sources = sources
        self.options = options
    }

    /// What a channel needs to reach its connection again.
    struct Route: Sendable {
        let endpoint: APIEndpointConfiguration
        let mode: AWSAuthorizationType
        let token: String?
        var key: String { "\(endpoint.name)\u{0}\(mode.rawValue)\u{0}\(token ?? "")" }
    }

    /// Holds the route's connection open for `channelId` and returns once AppSync acknowledged it.
    /// Cancelling the calling task stops the wait (the connection goes on for others).
    /// - Throws: `APIError` for authorization that cannot be had, a connection that fails, a reset.
    func hold(_ route: Route, channelId: String) async throws {
        let registry = self.registry
        let loop = self.loop
        let key = route.key
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, APIError>, Never>) in
                let ready = Self.once(continuation)
                do throws(APIError) {
                    try onConnection(route) { connection in connection.hold(for: channelId, ready: ready) }
                } catch {
                    ready(.failure(error))
                }
            }
        } onCancel: {
            try? loop.execute { registry.connections[key]?.cancelWait(channelId) }
        }
        try result.get()
    }

    /// Resumes `continuation` with the first result it is given; later ones are ignored.
    private static func once<T: Sendable>(_ continuation: CheckedContinuation<Result<T, APIError>, Never>) -> @Sendable (Result<T, APIError>) -> Void
    {
        let delivered = Locked(false)
        return { result in
            let first = delivered.withLock { flag in
                defer { flag = true }
                return !flag
            }
            if first { continuation.resume(returning: result) }
        }
    }

    /// Lets go of the route's connection for `channelId`, stopping its subscriptions.
    func release(_ route: Route, channelId: String, subscriptions: [String]) async {
        let registry = self.registry
        let key = route.key
        await loop.value(ifShutDown: ()) { registry.connections[key]?.release(channelId, subscriptions: subscriptions) }
    }

    /// Subscribes to `channel` on the route's connection, authorized with `subscribe`.
    /// `onEnd` runs once the subscription has ended (unsubscribed, failed, or its channel closed);
    /// `isWanted` is asked on the loop before the subscription joins its connection (a channel
    /// closed meanwhile ends it there).
    func subscribe(
        _ route: Route, id: String, channel: String, authorization subscribe: @escaping @Sendable () async throws -> PreparedAuthorization,
        isWanted: @escaping @Sendable () -> Bool, onEnd: @escaping @Sendable (String) -> Void
    ) -> AmplifyAsyncThrowingSequence<EventsSubscriptionEvent> {
        let sequence = AmplifyAsyncThrowingSequence<EventsSubscriptionEvent>()
        let key = route.key
        let registry = self.registry
        let loop = self.loop
        sequence.setParent(
            RealtimeCancellation {
                try? loop.execute { registry.connections[key]?.stop(id) }
            })
        let last = Locked<SubscriptionConnectionState?>(nil)
        Task {
            let authorization: PreparedAuthorization
            do {
                authorization = try await subscribe()
            } catch {
                onEnd(id)
                sequence.fail(error as? APIError ?? APIError.operationError("\(error)", "", error))
                return
            }
            let held = Locked<[EventsSubscriptionEvent]>([])
            let flush: @Sendable () -> Void = {
                let events = held.withLock { events in
                    defer { events.removeAll(keepingCapacity: true) }
                    return events
                }
                for event in events { sequence.send(event) }
            }
            let subscription = EventsSubscription(
                id: id, channel: channel, authorization: authorization, authorize: subscribe,
                state: { state in
                    flush()
                    let changed = last.withLock { previous in
                        defer { previous = state }
                        return previous != state
                    }
                    if changed { sequence.send(.connection(state)) }
                },
                deliver: { event in held.withLock { $0.append(.data(event)) } },
                flush: flush,
                fail: { error in
                    flush()
                    onEnd(id)
                    sequence.fail(error)
                },
                complete: {
                    flush()
                    onEnd(id)
                    sequence.finish()
                })
            do {
                try onConnection(route) { connection in
                    guard !sequence.isCancelled else {
                        onEnd(id)
                        return
                    }
                    guard isWanted() else {
                        subscription.state(.disconnected)
                        subscription.complete()
                        return
                    }
                    connection.add(subscription)
                }
            } catch {
                onEnd(id)
                sequence.fail(error)
            }
        }
        return sequence
    }

    /// Publishes on the route's connection and returns AppSync's answer. Cancelling the calling
    /// task fails the publish (one already sent may still be delivered).
    /// - Throws: `APIError` for a refusal, a lost connection, a timeout, a reset.
    func publish(_ route: Route, channel: String, events: [String], authorization: PreparedAuthorization) async throws -> EventsPublishResult {
        let id = UUID().uuidString.lowercased()
        let registry = self.registry
        let loop = self.loop
        let key = route.key
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<EventsPublishResult, APIError>, Never>) in
                let finish = Self.once(continuation)
                let publish = EventsPublish(id: id, channel: channel, events: events, authorization: authorization, finish: finish)
                do throws(APIError) {
                    try onConnection(route) { connection in connection.publish(publish) }
                } catch {
                    finish(.failure(error))
                }
            }
        } onCancel: {
            try? loop.execute { registry.connections[key]?.cancelPublish(id) }
        }
        return try result.get()
    }

    /// Runs `body` on the loop with the route's connection, made if there is none.
    /// - Throws: `APIError` when the plugin was reset or the loop is gone.
    private func onConnection(_ route: Route, _ body: @escaping @Sendable (AppSyncEventsConnection) -> Void) throws(APIError) {
        let registry = self.registry
        let loop = self.loop
        let options = self.options
        let sources = self.sources
        let isShutDown = self.isShutDown
        let key = route.key
        do {
            try loop.execute {
                guard !isShutDown.value else {
                    let made = AppSyncEventsConnection(
                        loop: loop, endpoint: route.endpoint, authorize: { _ in throw APIError.operationError("The API plugin was reset.", "") },
                        options: options, onIdle: {})
                    made.shutdown()
                    body(made)
                    return
                }
                let connection =
                    registry.connections[key]
                    ?? {
                        let made = AppSyncEventsConnection(
                            loop: loop, endpoint: route.endpoint,
                            authorize: { forceRefresh in
                                try await PreparedAuthorization.prepare(
                                    mode: route.mode, endpoint: route.endpoint, sources: sources, token: route.token, forceRefresh: forceRefresh)
                            },
                            options: options, onIdle: { registry.connections[key] = nil })
                        registry.connections[key] = made
                        return made
                    }()
                body(connection)
            }
        } catch {
            throw APIError.operationError("The event loop is shut down.", "Configure Amplify again.", error)
        }
    }

    /// Ends every subscription, fails every waiting publish and closes every socket.
    func shutdown() async {
        isShutDown.withLock { $0 = true }
        let registry = self.registry
        await loop.value(ifShutDown: ()) {
            let connections = Array(registry.connections.values)
            registry.connections.removeAll()
            for connection in connections { connection.shutdown() }
        }
    }

    /// Closes every socket now (`closeAll()`): subscriptions end, waiting calls fail; later
    /// calls open new ones.
    func shutdownConnections() async {
        let registry = self.registry
        await loop.value(ifShutDown: ()) {
            let connections = Array(registry.connections.values)
            registry.connections.removeAll()
            for connection in connections { connection.shutdown(reason: "closeAll() closed the Events connection.") }
        }
    }

    /// How many Events sockets are open or opening, for tests. Loop-hopping.
    func connectionCount() async -> Int {
        let registry = self.registry
        return await loop.value(ifShutDown: 0) { registry.connections.count }
    }
}

/// The connections by route. Loop thread only.
final class EventsRegistry: @unchecked Sendable {
    // @unchecked Sendable: `connections` is read and written on the loop thread only.
    var connections: [String: AppSyncEventsConnection] = [:]
}
