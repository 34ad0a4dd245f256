import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import AmplifyConcurrency
import AmplifyEventLoop
import AmplifyTestKit
import Foundation

/// The test schema's Todo, as an application declares it.
struct Todo: Codable, Sendable, Equatable {
    let id: String
    let name: String
    var description: String?
    var priority: Int?
    var done: Bool?
    var tags: [String?]?
    var failingField: String?
}

/// The test schema's Identity: who the stand-in took the caller for.
struct Identity: Codable, Sendable {
    let authMode: String
    let username: String?
}

enum Documents {
    static let create = "mutation Create($input: CreateTodoInput!) { createTodo(input: $input) { id name description priority done tags } }"
    static let get = "query Get($id: ID!) { getTodo(id: $id) { id name description priority done tags } }"
    static let whoAmI = "query { whoAmI { authMode username } }"
    static let onCreate = "subscription OnCreate($name: String) { onCreateTodo(name: $name) { id name description priority } }"
}

/// A loop, a Hub and an API plugin of the test's own, pointed at an AppSync stand-in.
final class APIFixture: Sendable {
    static let iamKey = AWSCredentials(accessKeyId: "AKIDAPPSYNCTEST", secretAccessKey: "appsync-test-secret")
    static let apiKey = "da2-test"

    let loop: EventLoop
    let hub: DefaultHubPlugin
    let plugin: AWSAPIPlugin
    let events: HubEventRecorder

    /// A plugin with one GraphQL API named `todos` at `endpoint`, default mode `mode`, every other
    /// mode allowed.
    init(
        endpoint: URL, mode: AWSAuthorizationType = .apiKey, apiKey: String? = APIFixture.apiKey,
        credentials: AWSCredentials = APIFixture.iamKey, credentialsProvider: (any AWSCredentialsProvider)? = nil,
        userPoolToken: (@Sendable (Bool) async throws -> String)? = nil,
        factory: APIAuthProviderFactory = APIAuthProviderFactory(), options: AWSAPIPlugin.Options = AWSAPIPlugin.Options(),
        more: [APIEndpointConfiguration] = [], modelRegistration: (any AmplifyModelRegistration)? = nil
    ) throws {
        loop = try EventLoop(name: "api-test")
        hub = DefaultHubPlugin(loop: loop)
        events = HubEventRecorder(channel: .api, hub: hub)
        let credentials = credentialsProvider ?? StaticCredentialsProvider(credentials)
        let userPoolToken = userPoolToken ?? { _ in throw APIError.operationError("no user pool in this test", "") }
        if let modelRegistration {
            plugin = AWSAPIPlugin(
                modelRegistration: modelRegistration, apiAuthProviderFactory: factory, loop: loop, hub: hub, credentials: credentials,
                userPoolToken: userPoolToken, options: options)
        } else {
            plugin = AWSAPIPlugin(
                apiAuthProviderFactory: factory, loop: loop, hub: hub, credentials: credentials, userPoolToken: userPoolToken, options: options)
        }
        try plugin.configure(
            endpoints: [
                APIEndpointConfiguration(
                    name: "todos", endpointType: .graphQL, endpoint: endpoint, region: "us-east-1", authorizationType: mode,
                    additionalAuthorizationTypes: AWSAuthorizationType.allCases.filter { $0 != mode }, apiKey: apiKey)
            ] + more)
    }

    convenience init(
        server: AppSyncServer, mode: AWSAuthorizationType = .apiKey, apiKey: String? = APIFixture.apiKey,
        credentials: AWSCredentials = APIFixture.iamKey, credentialsProvider: (any AWSCredentialsProvider)? = nil,
        userPoolToken: (@Sendable (Bool) async throws -> String)? = nil,
        factory: APIAuthProviderFactory = APIAuthProviderFactory(), options: AWSAPIPlugin.Options? = nil,
        modelRegistration: (any AmplifyModelRegistration)? = nil
    ) throws {
        var options = options ?? AWSAPIPlugin.Options()
        if server.tls { options.trustedCertificatesFile = server.certificateFile }
        try self.init(
            endpoint: server.graphQLEndpoint, mode: mode, apiKey: apiKey, credentials: credentials, credentialsProvider: credentialsProvider,
            userPoolToken: userPoolToken,
            factory: factory, options: options, modelRegistration: modelRegistration)
    }

    /// Creates a todo with `name` through the API and returns it.
    @discardableResult
    func create(_ name: String, id: String? = nil, priority: Int? = nil) async throws -> Todo {
        var input: [String: any Sendable] = ["name": name]
        if let id { input["id"] = id }
        if let priority { input["priority"] = priority }
        let response = try await plugin.mutate(
            request: GraphQLRequest(
                document: Documents.create, variables: ["input": input], responseType: Todo.self, decodePath: "createTodo"))
        return try response.get()
    }

    func close() async throws {
        await plugin.reset()
        await hub.reset()
        try loop.shutdown()
    }
}

/// A token provider that returns what it is given.
struct FixedToken: AmplifyOIDCAuthProvider, AmplifyFunctionAuthProvider {
    let token: String
    func getLatestAuthToken() async throws -> String { token }
}

extension AppSyncServer.Options {
    /// Every mode but user pools: the API key, the IAM key, one OIDC and one Lambda token.
    static var allButUserPools: AppSyncServer.Options {
        AppSyncServer.Options(
            apiKeys: [APIFixture.apiKey], iamKeys: [(APIFixture.iamKey.accessKeyId, APIFixture.iamKey.secretAccessKey, nil)],
            oidcTokens: ["oidc-token-1"], lambdaTokens: ["lambda-token-1"], defaultAuth: "API_KEY")
    }
}

extension Result {
    /// The failure, or `nil`.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
