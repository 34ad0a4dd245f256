import Foundation

/// `Amplify.API`: GraphQL (AppSync) and REST (API Gateway) through the one API plugin added or
/// named in the configuration file.
///
/// Calls throw (or, for `subscribe`, return a sequence that fails with)
/// ``APIError/invalidConfiguration(_:_:_:)`` if Amplify is not configured or the category does
/// not have exactly one plugin.
public final class APICategory: APICategoryBehavior {
    let plugins = CategoryPlugins<any APICategoryPlugin>(category: .api) { APIError.invalidConfiguration($0, $1) }

    init() {}

    /// `.api`.
    public let categoryType: CategoryType = .api

    /// The plugin with `key`.
    /// - Throws: ``APIError/invalidConfiguration(_:_:_:)`` listing the keys there are (amplify-swift's error).
    public func getPlugin(for key: PluginKey) throws -> any APICategoryPlugin {
        try plugins.require(key)
    }

    /// Removes the plugin with `key` (before `configure`).
    public func removePlugin(for key: PluginKey) { plugins.remove(key: key) }

    /// Resets every API plugin, removes them and marks the category unconfigured (what
    /// `Amplify.reset()` does for API).
    public func reset() async {
        for plugin in plugins.takeAll() { await plugin.reset() }
    }

    private func selected() throws -> any APICategoryPlugin {
        let selection = plugins.selectOne()
        if case .plugin(let plugin) = selection { return plugin }
        let (description, suggestion) = plugins.explain(selection)
        throw APIError.invalidConfiguration(description, suggestion)
    }

    /// Runs a query. - Throws: ``APIError``.
    public func query<R: Decodable & Sendable>(request: GraphQLRequest<R>) async throws -> GraphQLResponse<R> {
        try await selected().query(request: request)
    }

    /// Runs a mutation. - Throws: ``APIError``.
    public func mutate<R: Decodable & Sendable>(request: GraphQLRequest<R>) async throws -> GraphQLResponse<R> {
        try await selected().mutate(request: request)
    }

    /// Starts a subscription; the sequence yields its connection states and data (see
    /// ``APICategoryGraphQLBehavior/subscribe(request:)``).
    public func subscribe<R: Decodable & Sendable>(request: GraphQLRequest<R>) -> AmplifyAsyncThrowingSequence<GraphQLSubscriptionEvent<R>> {
        do {
            return try selected().subscribe(request: request)
        } catch {
            let sequence = AmplifyAsyncThrowingSequence<GraphQLSubscriptionEvent<R>>()
            sequence.fail(error)
            return sequence
        }
    }

    /// `GET`. - Throws: ``APIError``.
    public func get(request: RESTRequest) async throws -> Data { try await selected().get(request: request) }
    /// `PUT`. - Throws: ``APIError``.
    public func put(request: RESTRequest) async throws -> Data { try await selected().put(request: request) }
    /// `POST`. - Throws: ``APIError``.
    public func post(request: RESTRequest) async throws -> Data { try await selected().post(request: request) }
    /// `DELETE`. - Throws: ``APIError``.
    public func delete(request: RESTRequest) async throws -> Data { try await selected().delete(request: request) }
    /// `HEAD`. - Throws: ``APIError``.
    public func head(request: RESTRequest) async throws -> Data { try await selected().head(request: request) }
    /// `PATCH`. - Throws: ``APIError``.
    public func patch(request: RESTRequest) async throws -> Data { try await selected().patch(request: request) }

    /// Adds `interceptor` to the API named `apiName`.
    /// - Throws: ``APIError/invalidConfiguration(_:_:_:)`` when there is no such API or no plugin.
    public func add(interceptor: any URLRequestInterceptor, for apiName: String) throws {
        try selected().add(interceptor: interceptor, for: apiName)
    }
}
