import AWSPluginsCore
import Amplify
import AmplifyEventLoop

/// The plugin's real-time connections: one per API and auth mode, shared by its subscriptions.
final class AppSyncRealtimeClients: Sendable {
    let loop: EventLoop
    let sources: APIAuthSources
    let reporter: APIHubReporter
    let options: AWSAPIPlugin.Options

    init(loop: EventLoop, sources: APIAuthSources, reporter: APIHubReporter, options: AWSAPIPlugin.Options) {
        self.loop = loop
        self.sources = sources
        self.reporter = reporter
        self.options = options
    }

    func subscribe<R: Decodable & Sendable>(
        _ request: GraphQLRequest<R>, endpoint: APIEndpointConfiguration, mode: AWSAuthorizationType
    ) throws -> AmplifyAsyncThrowingSequence<GraphQLSubscriptionEvent<R>> {
        throw APIError.operationError("Subscriptions are not available yet.", "")
    }

    func shutdown() async {}
}
