import AWSPluginsCore
import Amplify
import AmplifyConcurrency
import AmplifyEventLoop
import Foundation

/// The plugin's real-time connections: one per API and auth mode, shared by every subscription
/// of that pair, made on the first subscription and closed after the last one stops.
final class AppSyncRealtimeClients: Sendable {
    let loop: EventLoop
    let sources: APIAuthSources
    let reporter: APIHubReporter
    let options: AWSAPIPlugin.Options
    private let registry = RealtimeRegistry()
    private let isShutDown = Locked(false)

    init(loop: EventLoop, sources: APIAuthSources, reporter: APIHubReporter, options: AWSAPIPlugin.Options) {
        self.loop = loop
        self.sources = sources
        self.reporter = reporter
        self.options = options
    }

    /// Starts `request` on the connection for `endpoint` and `mode`; the sequence reports
    /// `connecting`, then `connected` once the server acknowledged it, then its data.
    /// - Throws: `APIError` when the variables cannot be encoded or there is no real-time URL.
    func subscribe<R: Decodable & Sendable>(
        _ request: GraphQLRequest<R>, endpoint: APIEndpointConfiguration, mode: AWSAuthorizationType
    ) throws -> AmplifyAsyncThrowingSequence<GraphQLSubscriptionEvent<R>> {
        guard endpoint.realtimeEndpoint != nil else {
            throw APIError.invalidURL("No real-time endpoint can be made from \(endpoint.endpoint).", "Check the API's endpoint.")
        }
        var payload: [String: JSONValue] = ["query": .string(request.document)]
        if let variables = try request.variablesJSON() { payload["variables"] = variables }
        let data = String(decoding: try JSONEncoder().encode(JSONValue.object(payload)), as: UTF8.self)
        let sequence = AmplifyAsyncThrowingSequence<GraphQLSubscriptionEvent<R>>()
        let id = UUID().uuidString.lowercased()
        let key = "\(endpoint.name)\u{0}\(mode.rawValue)"
        let context = APIOperationContext(apiName: endpoint.name, operation: GraphQLOperationType.subscription.rawValue, operationId: id)
        let reporter = self.reporter
        let decodePath = request.decodePath
        let last = Locked<SubscriptionConnectionState?>(nil)
        let loop = self.loop
        let registry = self.registry
        sequence.setParent(
            RealtimeCancellation { [registry] in
                try? loop.execute { registry.connections[key]?.stop(id) }
            })
        let sources = self.sources
        let options = self.options
        let isShutDown = self.isShutDown
        Task {
            let authorization: PreparedAuthorization
            do {
                authorization = try await PreparedAuthorization.prepare(mode: mode, endpoint: endpoint, sources: sources)
            } catch {
                let apiError = error as? APIError ?? APIError.operationError("\(error)", "", error)
                reporter.dispatch(HubPayload.EventName.API.subscribe, context: context, data: apiError)
                sequence.fail(apiError)
                return
            }
            // Data events decoded during one loop turn, sent together at its end (flush).
            let held = Locked<[GraphQLSubscriptionEvent<R>]>([])
            let flush: @Sendable () -> Void = {
                let events = held.withLock { events in
                    defer { events.removeAll(keepingCapacity: true) }
                    return events
                }
                for event in events { sequence.send(event) }
            }
            let subscription = RealtimeSubscription(
                id: id, data: data, authorization: authorization,
                state: { state in
                    flush()
                    let changed = last.withLock { previous in
                        defer { previous = state }
                        return previous != state
                    }
                    guard changed else { return }
                    sequence.send(.connection(state))
                    reporter.dispatch(HubPayload.EventName.API.subscribe, context: context, data: state)
                },
                deliver: { bytes, payload in
                    let event: GraphQLSubscriptionEvent<R>
                    do {
                        event = .data(try GraphQLResponseDecoder.decodeDataMessage(bytes, payload: payload, as: R.self, decodePath: decodePath))
                    } catch {
                        event = .data(
                            .failure(
                                .transformationError(String(decoding: bytes, as: UTF8.self), error as? APIError ?? .unknown("\(error)", "", error))))
                    }
                    held.withLock { $0.append(event) }
                },
                flush: flush,
                fail: { error in
                    flush()
                    reporter.dispatch(HubPayload.EventName.API.subscribe, context: context, data: error)
                    sequence.fail(error)
                },
                complete: {
                    flush()
                    sequence.finish()
                })
            do {
                try loop.execute {
                    guard !sequence.isCancelled else { return }
                    guard !isShutDown.value else {
                        // Reset while its authorization was being fetched: it ends as reset ends the others.
                        subscription.state(.disconnected)
                        subscription.complete()
                        return
                    }
                    let connection =
                        registry.connections[key]
                        ?? {
                            let made = AppSyncRealtimeConnection(
                                loop: loop, endpoint: endpoint, mode: mode, sources: sources, options: options,
                                onIdle: { registry.connections[key] = nil })
                            registry.connections[key] = made
                            return made
                        }()
                    connection.add(subscription)
                }
            } catch {
                sequence.fail(APIError.operationError("The event loop is shut down.", "Configure Amplify again.", error))
            }
        }
        return sequence
    }

    /// Ends every subscription (`disconnected`, then the sequence finishes) and closes every socket.
    func shutdown() async {
        isShutDown.withLock { $0 = true }
        let registry = self.registry
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            do {
                try loop.execute {
                    for connection in registry.connections.values { connection.shutdown() }
                    registry.connections.removeAll()
                    continuation.resume()
                }
            } catch {
                continuation.resume()
            }
        }
    }

    /// How many sockets are open or opening, for tests. Loop-hopping.
    func connectionCount() async -> Int {
        let registry = self.registry
        return await loop.value(ifShutDown: 0) { registry.connections.count }
    }
}

/// The connections by API and mode. Loop thread only.
final class RealtimeRegistry: @unchecked Sendable {
    // @unchecked Sendable: `connections` is read and written on the loop thread only.
    var connections: [String: AppSyncRealtimeConnection] = [:]
}

/// Stops a subscription when its sequence is cancelled.
struct RealtimeCancellation: Cancellable {
    let action: @Sendable () -> Void
    func cancel() { action() }
}
