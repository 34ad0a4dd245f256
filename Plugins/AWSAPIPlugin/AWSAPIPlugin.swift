import AWSPluginsCore
import Amplify
import AmplifyConcurrency
import AmplifyEventLoop
import Foundation
import Tracing

/// The API plugin for AppSync (GraphQL, with real-time subscriptions) and API Gateway (REST), key
/// `awsAPIPlugin`, configured from the blocks the Amplify CLI (and every other configuration
/// shape) writes: `api.plugins.awsAPIPlugin.<apiName>` (see ``APIEndpointConfiguration``).
///
/// Every auth mode, per API and per request: `API_KEY`, `AWS_IAM` (SigV4 with credentials from
/// the chain, the Auth plugin's identity pool first), `AMAZON_COGNITO_USER_POOLS` (the signed-in
/// user's access token from `Amplify.Auth`, refreshed and tried once more after a 401),
/// `OPENID_CONNECT` and `AWS_LAMBDA` (tokens from the `APIAuthProviderFactory`), `NONE`.
/// Requests go through the HTTP client on the Amplify event loop; subscriptions share one
/// WebSocket per API and auth mode, driven by the same loop.
///
/// Outcomes also go to the Hub's `.api` channel (`API.query`, `API.mutate`, `API.get`, …, and
/// `API.subscribe` for each subscription's connection states), with an `APIOperationContext`.
public final class AWSAPIPlugin: APICategoryPlugin {
    /// Settings the configuration file does not carry.
    public struct Options: Sendable {
        /// How long an HTTP request may take in all (60 s).
        public var requestTimeout: Duration
        /// A PEM file of certificate authorities to trust instead of the system's, for HTTPS and
        /// WSS (a private CA; a test server's self-signed certificate).
        public var trustedCertificatesFile: String?
        /// How subscriptions reconnect after their WebSocket drops.
        public var reconnect: RealtimeReconnectPolicy
        /// How long to wait for `connection_ack` and for each `start_ack` (15 s, as Amplify JS).
        public var acknowledgementTimeout: Duration
        /// The largest WebSocket message accepted (1 MiB; AppSync's limit is 240 KB).
        public var maximumMessageSize: Int

        /// Options.
        /// - Parameters:
        ///   - requestTimeout: how long an HTTP request may take in all.
        ///   - trustedCertificatesFile: a PEM file of certificate authorities to trust instead of the system's.
        ///   - reconnect: how subscriptions reconnect after their WebSocket drops.
        ///   - acknowledgementTimeout: how long to wait for `connection_ack` and each `start_ack`.
        ///   - maximumMessageSize: the largest WebSocket message accepted.
        public init(
            requestTimeout: Duration = .seconds(60), trustedCertificatesFile: String? = nil,
            reconnect: RealtimeReconnectPolicy = RealtimeReconnectPolicy(),
            acknowledgementTimeout: Duration = .seconds(15), maximumMessageSize: Int = 1 << 20
        ) {
            self.requestTimeout = requestTimeout
            self.trustedCertificatesFile = trustedCertificatesFile
            self.reconnect = reconnect
            self.acknowledgementTimeout = acknowledgementTimeout
            self.maximumMessageSize = maximumMessageSize
        }
    }

    /// The plugin's key in the configuration file.
    public static let pluginKey: PluginKey = "awsAPIPlugin"

    /// `"awsAPIPlugin"`.
    public var key: PluginKey { Self.pluginKey }

    /// What configuration made (a class: a request takes one reference, not a copy of each part).
    private final class Configured: Sendable {
        let configuration: AWSAPIPluginConfiguration
        let http: HTTPClient
        let exchange: APIHTTPExchange
        let realtime: AppSyncRealtimeClients
        let events: AppSyncEventsClients

        init(
            configuration: AWSAPIPluginConfiguration, http: HTTPClient, exchange: APIHTTPExchange, realtime: AppSyncRealtimeClients,
            events: AppSyncEventsClients
        ) {
            self.configuration = configuration
            self.http = http
            self.exchange = exchange
            self.realtime = realtime
            self.events = events
        }

        func shutdown() async {
            await realtime.shutdown()
            await events.shutdown()
            await http.shutdown()
        }
    }

    /// The headers of every GraphQL request over HTTP (before authorization).
    private static let graphQLHeaders: [(name: String, value: String)] = [("Content-Type", "application/json"), ("Accept", "application/json")]

    private let loop: EventLoop?
    private let reporter: APIHubReporter
    private let sources: APIAuthSources
    private let options: Options
    private let state = Locked<Configured?>(nil)
    private let interceptors = Locked<[String: [any URLRequestInterceptor]]>([:])

    /// A plugin.
    /// - Parameters:
    ///   - apiAuthProviderFactory: the token providers for `OPENID_CONNECT` and `AWS_LAMBDA`.
    ///   - loop: the event loop requests and WebSockets run on (the Amplify loop by default).
    ///   - hub: where outcomes go (`Amplify.Hub` by default).
    ///   - credentials: AWS credentials for `AWS_IAM` (by default the Auth plugin's identity
    ///     pool, then the environment and the profile).
    ///   - userPoolToken: the user pool access token for `AMAZON_COGNITO_USER_POOLS`, refreshed
    ///     when its argument is `true` (by default the signed-in user's, from `Amplify.Auth`).
    ///   - options: timeouts, trusted certificates, reconnection.
    public init(
        apiAuthProviderFactory: APIAuthProviderFactory = APIAuthProviderFactory(), loop: EventLoop? = nil, hub: (any HubCategoryBehavior)? = nil,
        credentials: (any AWSCredentialsProvider)? = nil, userPoolToken: (@Sendable (_ forceRefresh: Bool) async throws -> String)? = nil,
        options: Options = Options()
    ) {
        self.loop = loop
        reporter = APIHubReporter(hub: hub)
        sources = APIAuthSources(
            credentials: credentials ?? AuthPluginCredentialsProvider.defaultChain(),
            userPoolToken: userPoolToken ?? APIAuthSources.userPoolToken(),
            factory: apiAuthProviderFactory)
        self.options = options
    }

    /// Reads the block (every API by name) and prepares the HTTP client.
    /// - Throws: `ConfigurationValueError` naming the key inside the block (Amplify adds
    ///   `api.plugins.awsAPIPlugin.`), `PluginError` when there is no block, `EventLoopError` or
    ///   `HTTPClientError` when the client cannot start.
    public func configure(using configuration: Any?) throws {
        try configure(AWSAPIPluginConfiguration(json: configuration as? JSONValue))
    }

    /// Configures the plugin with APIs made in code instead of a configuration block.
    /// - Throws: `EventLoopError` or `HTTPClientError` when the client cannot start.
    public func configure(endpoints: [APIEndpointConfiguration]) throws {
        try configure(AWSAPIPluginConfiguration(endpoints: endpoints))
    }

    private func configure(_ configuration: AWSAPIPluginConfiguration) throws {
        let loop = try loop ?? Amplify.eventLoop()
        let http = try HTTPClient(loop: loop)
        let interceptors = self.interceptors
        let exchange = APIHTTPExchange(
            http: http, sources: sources, interceptors: { name in interceptors.withLock { $0[name] ?? [] } },
            timeout: options.requestTimeout, trustedCertificatesFile: options.trustedCertificatesFile)
        let realtime = AppSyncRealtimeClients(loop: loop, sources: sources, reporter: reporter, options: options)
        let events = AppSyncEventsClients(loop: loop, sources: sources, options: options)
        let previous = state.withLock { state in
            defer { state = Configured(configuration: configuration, http: http, exchange: exchange, realtime: realtime, events: events) }
            return state
        }
        if let previous {
            Task { await previous.shutdown() }
        }
    }

    /// Stops every subscription, closes every WebSocket and the HTTP client, removes the
    /// interceptors and forgets the configuration.
    public func reset() async {
        let current = state.withLock { state in
            defer { state = nil }
            return state
        }
        interceptors.withLock { $0.removeAll() }
        await current?.shutdown()
    }

    private func configured() throws -> Configured {
        guard let current = state.value else {
            throw APIError.invalidConfiguration("The API plugin is not configured.", "Call Amplify.configure() first.")
        }
        return current
    }

    /// The APIs the plugin was configured with, by name.
    public var endpoints: [String: APIEndpointConfiguration] { state.value?.configuration.endpoints ?? [:] }

    // MARK: GraphQL

    /// Runs a query. - Throws: `APIError` (see `APICategoryGraphQLBehavior`).
    public func query<R: Decodable & Sendable>(request: GraphQLRequest<R>) async throws -> GraphQLResponse<R> {
        try await graphQL(request, operation: .query, event: HubPayload.EventName.API.query)
    }

    /// Runs a mutation. - Throws: `APIError` (see `APICategoryGraphQLBehavior`).
    public func mutate<R: Decodable & Sendable>(request: GraphQLRequest<R>) async throws -> GraphQLResponse<R> {
        try await graphQL(request, operation: .mutation, event: HubPayload.EventName.API.mutate)
    }

    private func graphQL<R: Decodable & Sendable>(_ request: GraphQLRequest<R>, operation: GraphQLOperationType, event: String) async throws
        -> GraphQLResponse<R>
    {
        let current = try configured()
        let endpoint = try current.configuration.endpoint(named: request.apiName, type: .graphQL)
        // A span per operation when a tracer is bootstrapped; its HTTP call is a child span.
        return try await AmplifyTracing.withSpan("GraphQL \(operation.rawValue)", ofKind: .client) { span in
            span?.attributes["graphql.operation.type"] = operation.rawValue
            span?.attributes["amplify.api.name"] = endpoint.name
            return try await graphQL(request, operation: operation, event: event, current: current, endpoint: endpoint)
        }
    }

    private func graphQL<R: Decodable & Sendable>(
        _ request: GraphQLRequest<R>, operation: GraphQLOperationType, event: String, current: Configured, endpoint: APIEndpointConfiguration
    ) async throws -> GraphQLResponse<R> {
        try await reporter.reporting(event, context: APIOperationContext(apiName: endpoint.name, operation: operation.rawValue)) {
            let mode = try Self.mode(of: request.authMode, endpoint: endpoint)
            // {"query":…,"variables":…}, written straight into the body.
            var body: [UInt8] = []
            body.reserveCapacity(request.document.utf8.count + 96)
            body.append(contentsOf: #"{"query":"#.utf8)
            JSONValue.writeString(request.document, into: &body)
            if request.variables != nil {
                body.append(contentsOf: #","variables":"#.utf8)
                _ = try request.writeVariablesJSON(into: &body)
            }
            body.append(UInt8(ascii: "}"))
            let response = try await current.exchange.send(
                endpoint: endpoint, method: "POST", url: endpoint.endpoint, target: endpoint.target,
                headers: Self.graphQLHeaders, body: body, mode: mode)
            guard (200..<300).contains(response.status) else { throw Self.statusError(response, url: endpoint.endpoint) }
            let context = AppSyncDecodingContext(plugin: self, apiName: request.apiName, authMode: request.authMode)
            let decoded = try AppSyncDecodingContext.$current.withValue(context) {
                try GraphQLResponseDecoder.decode(response.body, as: R.self, decodePath: request.decodePath)
            }
            attachPaging(decoded, of: request)
            return decoded
        }
    }

    /// Starts a subscription on the API's shared WebSocket for its auth mode.
    public func subscribe<R: Decodable & Sendable>(request: GraphQLRequest<R>) -> AmplifyAsyncThrowingSequence<GraphQLSubscriptionEvent<R>> {
        do {
            let current = try configured()
            let endpoint = try current.configuration.endpoint(named: request.apiName, type: .graphQL)
            let mode = try Self.mode(of: request.authMode, endpoint: endpoint)
            return try current.realtime.subscribe(request, endpoint: endpoint, mode: mode)
        } catch {
            let sequence = AmplifyAsyncThrowingSequence<GraphQLSubscriptionEvent<R>>()
            sequence.fail(error)
            return sequence
        }
    }

    /// How many real-time sockets are open or opening (one per API and auth mode in use).
    public func realtimeConnectionCount() async -> Int {
        await state.value?.realtime.connectionCount() ?? 0
    }

    // MARK: Events

    /// The Events clients and the Events API named `apiName` (the only one when `nil`).
    /// - Throws: `APIError.invalidConfiguration` when the plugin is not configured or has no such API.
    func eventsClients(apiName: String?) throws -> (AppSyncEventsClients, APIEndpointConfiguration) {
        let current = try configured()
        return (current.events, try current.configuration.endpoint(named: apiName, type: .events))
    }

    /// `POST /event` with `{"channel", "events"}`, authorized by the publish mode.
    func postEvents(_ channel: String, _ events: [String], options: EventsOptions?, apiName: String?) async throws -> EventsPublishResult {
        let current = try configured()
        let endpoint = try current.configuration.endpoint(named: apiName, type: .events)
        let mode = try Self.mode(of: options?.authMode, endpoint: endpoint)
        return try await AmplifyTracing.withSpan("Events publish", ofKind: .client) { span in
            span?.attributes["amplify.api.name"] = endpoint.name
            let body = Array(EventsMessageBody.publish(channel: channel, events: events).utf8)
            let response = try await current.exchange.send(
                endpoint: endpoint, method: "POST", url: endpoint.endpoint, target: endpoint.target, headers: Self.graphQLHeaders, body: body,
                mode: mode, token: options?.authToken)
            guard (200..<300).contains(response.status) else { throw Self.statusError(response, url: endpoint.endpoint) }
            guard let json = try? JSONValue(parsing: response.body) else {
                throw APIError.operationError(
                    "The Events API '\(endpoint.name)' answered the publish with something that is not JSON: \(String(decoding: response.body.prefix(200), as: UTF8.self))",
                    "Check that the endpoint is an AppSync Events API's HTTP endpoint (…/event).")
            }
            return EventsPublishResult(json)
        }
    }

    func closeAllEvents() async {
        await state.value?.events.shutdownConnections()
    }

    /// How many Events sockets are open or opening (one per Events API and connect auth mode in use).
    public func eventsConnectionCount() async -> Int {
        await state.value?.events.connectionCount() ?? 0
    }

    static func mode(of requested: (any AuthorizationMode)?, endpoint: APIEndpointConfiguration) throws -> AWSAuthorizationType {
        guard let requested else { return endpoint.authorizationType }
        guard let mode = requested as? AWSAuthorizationType else {
            throw APIError.invalidConfiguration(
                "The request's authMode (\(type(of: requested))) is not an AWSAuthorizationType.",
                "Pass an AWSAuthorizationType (`.apiKey`, `.awsIAM`, …).")
        }
        return mode
    }

    // MARK: REST

    /// `GET`. - Throws: `APIError`.
    public func get(request: RESTRequest) async throws -> Data { try await rest("GET", request, event: HubPayload.EventName.API.get) }
    /// `PUT`. - Throws: `APIError`.
    public func put(request: RESTRequest) async throws -> Data { try await rest("PUT", request, event: HubPayload.EventName.API.put) }
    /// `POST`. - Throws: `APIError`.
    public func post(request: RESTRequest) async throws -> Data { try await rest("POST", request, event: HubPayload.EventName.API.post) }
    /// `DELETE`. - Throws: `APIError`.
    public func delete(request: RESTRequest) async throws -> Data { try await rest("DELETE", request, event: HubPayload.EventName.API.delete) }
    /// `HEAD`. - Throws: `APIError`.
    public func head(request: RESTRequest) async throws -> Data { try await rest("HEAD", request, event: HubPayload.EventName.API.head) }
    /// `PATCH`. - Throws: `APIError`.
    public func patch(request: RESTRequest) async throws -> Data { try await rest("PATCH", request, event: HubPayload.EventName.API.patch) }

    private func rest(_ method: String, _ request: RESTRequest, event: String) async throws -> Data {
        let current = try configured()
        let endpoint = try current.configuration.endpoint(named: request.apiName, type: .rest)
        return try await reporter.reporting(event, context: APIOperationContext(apiName: endpoint.name, operation: method)) {
            let url = try RESTURL.make(endpoint: endpoint.endpoint, path: request.path, query: request.queryParameters)
            var headers = (request.headers ?? [:]).sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
            if request.body != nil, !headers.contains(where: { $0.name.lowercased() == "content-type" }) {
                headers.append(("Content-Type", "application/json"))
            }
            let response = try await current.exchange.send(
                endpoint: endpoint, method: method, url: url, headers: headers, body: request.body.map { [UInt8]($0) } ?? [],
                mode: endpoint.authorizationType)
            guard (200..<300).contains(response.status) else { throw Self.statusError(response, url: url) }
            return Data(response.body)
        }
    }

    static func statusError(_ response: HTTPResponse, url: URL) -> APIError {
        let headers = Dictionary(response.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        guard let http = APIHTTPURLResponse(url: url, statusCode: response.status, headerFields: headers, body: Data(response.body)) else {
            return .unknown("The service answered HTTP \(response.status).", "")
        }
        return .httpStatusError(response.status, http)
    }

    // MARK: Interceptors

    /// Adds `interceptor` to the API named `apiName`; it runs on every later request to it, before signing.
    /// - Throws: `APIError.invalidConfiguration` when the plugin is not configured or has no such API.
    public func add(interceptor: any URLRequestInterceptor, for apiName: String) throws {
        let current = try configured()
        guard current.configuration.endpoints[apiName] != nil else {
            throw APIError.invalidConfiguration(
                "There is no API named '\(apiName)' to add an interceptor to; the configuration names \(current.configuration.endpoints.keys.sorted().map { "'\($0)'" }.joined(separator: ", ")).",
                "Use one of those names.")
        }
        interceptors.withLock { $0[apiName, default: []].append(interceptor) }
    }
}

/// The URL of a REST request: the endpoint, the path below it, the query parameters.
enum RESTURL {
    /// - Throws: `APIError.invalidURL` when they do not make a URL.
    static func make(endpoint: URL, path: String?, query: [String: String]?) throws -> URL {
        guard var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) else {
            throw APIError.invalidURL("The endpoint \(endpoint) is not a valid URL.", "Check the API's endpoint in the configuration.")
        }
        var base = components.percentEncodedPath
        if base.hasSuffix("/") { base.removeLast() }
        if let path, !path.isEmpty {
            let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
            components.percentEncodedPath = base + (encoded.hasPrefix("/") ? encoded : "/" + encoded)
        }
        if let query, !query.isEmpty {
            var allowed = CharacterSet.urlQueryAllowed
            allowed.remove(charactersIn: "&=+?/")
            components.percentEncodedQueryItems = query.sorted { $0.key < $1.key }.map {
                URLQueryItem(
                    name: $0.key.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0.key,
                    value: $0.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0.value)
            }
        }
        guard let url = components.url else {
            throw APIError.invalidURL(
                "The path '\(path ?? "")' and query do not make a URL with \(endpoint).", "Check the request's path and query parameters.")
        }
        return url
    }
}
