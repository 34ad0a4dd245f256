import Foundation

/// GraphQL through the API category.
public protocol APICategoryGraphQLBehavior: Sendable {
    /// Runs a query and returns its data or errors.
    /// - Throws: ``APIError`` when there is no response to decode (configuration, network, an
    ///   HTTP status outside 200–299, a body that is not JSON).
    func query<R: Decodable & Sendable>(request: GraphQLRequest<R>) async throws -> GraphQLResponse<R>
    /// Runs a mutation and returns its data or errors.
    /// - Throws: ``APIError``, as ``query(request:)``.
    func mutate<R: Decodable & Sendable>(request: GraphQLRequest<R>) async throws -> GraphQLResponse<R>
    /// Starts a subscription: the sequence yields its connection states and each event's data;
    /// it ends when the subscription completes, fails (with an ``APIError``) or is cancelled
    /// (call `cancel()`, or stop iterating by cancelling the consuming task).
    func subscribe<R: Decodable & Sendable>(request: GraphQLRequest<R>) -> AmplifyAsyncThrowingSequence<GraphQLSubscriptionEvent<R>>
}

/// REST through the API category. Each call returns the body of a 2xx answer.
public protocol APICategoryRESTBehavior: Sendable {
    /// `GET`. - Throws: ``APIError`` (``APIError/httpStatusError(_:_:)`` for a status outside 200–299).
    func get(request: RESTRequest) async throws -> Data
    /// `PUT`. - Throws: ``APIError``.
    func put(request: RESTRequest) async throws -> Data
    /// `POST`. - Throws: ``APIError``.
    func post(request: RESTRequest) async throws -> Data
    /// `DELETE`. - Throws: ``APIError``.
    func delete(request: RESTRequest) async throws -> Data
    /// `HEAD` (the body is empty). - Throws: ``APIError``.
    func head(request: RESTRequest) async throws -> Data
    /// `PATCH`. - Throws: ``APIError``.
    func patch(request: RESTRequest) async throws -> Data
}

/// Request interceptors.
public protocol APICategoryInterceptorBehavior: Sendable {
    /// Adds `interceptor` to the API named `apiName`; it runs on every later request to that API.
    /// - Throws: ``APIError/invalidConfiguration(_:_:_:)`` when there is no such API.
    func add(interceptor: any URLRequestInterceptor, for apiName: String) throws
}

/// What the API category does: GraphQL (AppSync), REST (API Gateway) and interceptors. Plugins
/// also dispatch each call's outcome on the Hub's `.api` channel (`HubPayload.EventName.API.*`).
public protocol APICategoryBehavior: APICategoryGraphQLBehavior, APICategoryRESTBehavior, APICategoryInterceptorBehavior {}
