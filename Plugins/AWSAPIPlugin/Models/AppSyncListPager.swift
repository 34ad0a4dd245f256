import AWSPluginsCore
import Amplify
import AmplifyEventLoop

/// Fetches the page after a list's `nextToken` by repeating the request that returned the list,
/// with `$nextToken` added to its document when it has none (the documents `.list` builds).
struct AppSyncListPager: ModelListPager {
    let plugin: AWSAPIPlugin
    let apiName: String?
    let document: String
    let variables: [String: any Sendable]
    let decodePath: String?
    let authMode: (any AuthorizationMode)?

    func nextPage<M: Model>(of type: M.Type, after nextToken: String) async throws -> List<M> {
        guard let document = Self.documentTakingNextToken(document) else {
            throw CoreError.listOperation(
                "The list's query declares no $nextToken and is not one GraphQLRequest.list built, so its next page cannot be asked for.",
                "Declare `$nextToken: String` in the query and pass it to the list field, or query the next page yourself with this list's nextToken."
            )
        }
        var variables = variables
        variables["nextToken"] = nextToken
        let request = GraphQLRequest<List<M>>(
            apiName: apiName, document: document, variables: variables, responseType: List<M>.self, decodePath: decodePath, authMode: authMode)
        switch try await plugin.query(request: request) {
        case .success(let list): return list
        case .failure(let error): throw error
        }
    }

    /// `document` with `$nextToken` declared and passed to its field: as it is when it already
    /// declares it; added to the first two lines when they have the shape `.list` writes
    /// (`query ListX($a: T) {` and `  listX(a: $a) {`); `nil` otherwise.
    static func documentTakingNextToken(_ document: String) -> String? {
        if document.contains("$nextToken") { return document }
        var lines = document.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count > 2, lines[0].hasPrefix("query "), lines[0].hasSuffix(") {"), lines[1].hasSuffix(") {") else { return nil }
        lines[0] = String(lines[0].dropLast(3)) + ", $nextToken: String) {"
        lines[1] = String(lines[1].dropLast(3)) + ", nextToken: $nextToken) {"
        return lines.joined(separator: "\n")
    }
}

/// The plugin, API and auth mode a response is being decoded for: set around the decoding, so that
/// references decoded as their key load through the same API as the data came from.
struct AppSyncDecodingContext: Sendable {
    @TaskLocal static var current: AppSyncDecodingContext?

    let plugin: AWSAPIPlugin
    let apiName: String?
    let authMode: (any AuthorizationMode)?
}

/// Loads a lazily referenced model by its key (`getX` with the key) through the API its
/// reference came from.
struct AppSyncModelProvider<Element: Model>: ModelProvider {
    let identifiers: [LazyReferenceIdentifier]
    let context: AppSyncDecodingContext

    func load() async throws -> Element? {
        var builder = ModelBasedGraphQLDocumentBuilder(modelSchema: Element.schema, operationType: .query)
        builder.add(decorator: DirectiveNameDecorator(type: .get))
        builder.add(decorator: ModelIdDecorator(identifiers: identifiers))
        let document = builder.build()
        let request = GraphQLRequest<Element?>(
            apiName: context.apiName, document: document.stringValue, variables: document.variables, responseType: Element?.self,
            decodePath: document.name, authMode: context.authMode)
        switch try await context.plugin.query(request: request) {
        case .success(let model): return model
        case .failure(let error): throw error
        }
    }

    func getState() -> ModelProviderState<Element> { .notLoaded(identifiers: identifiers) }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(identifiers)
    }
}

/// Decodes a reference AppSync returned as its key alone (`post { id __typename }`), while the
/// plugin decodes a response, into one ``AppSyncModelProvider`` loads; anything else is left to
/// `LazyReference` itself.
enum AppSyncModelProviderDecoder: ModelProviderDecoder {
    static func decode<ModelType: Model>(modelType: ModelType.Type, decoder: any Decoder) -> AnyModelProvider<ModelType>? {
        guard let context = AppSyncDecodingContext.current, let identifiers = LazyReference<ModelType>.keyOnlyIdentifiers(in: decoder) else {
            return nil
        }
        return AppSyncModelProvider<ModelType>(identifiers: identifiers, context: context).eraseToAnyModelProvider()
    }
}

extension AWSAPIPlugin {
    /// A plugin that knows the app's models: registers every model `modelRegistration` names
    /// (`AmplifyModels()`, generated with them) and lets their lazy references load through the
    /// API; other arguments as ``init(apiAuthProviderFactory:loop:hub:credentials:userPoolToken:options:)``.
    public convenience init(
        modelRegistration: any AmplifyModelRegistration, apiAuthProviderFactory: APIAuthProviderFactory = APIAuthProviderFactory(),
        loop: EventLoop? = nil, hub: (any HubCategoryBehavior)? = nil, credentials: (any AWSCredentialsProvider)? = nil,
        userPoolToken: (@Sendable (_ forceRefresh: Bool) async throws -> String)? = nil, options: Options = Options()
    ) {
        self.init(
            apiAuthProviderFactory: apiAuthProviderFactory, loop: loop, hub: hub, credentials: credentials, userPoolToken: userPoolToken,
            options: options)
        modelRegistration.registerModels(registry: ModelRegistry.self)
        ModelProviderRegistry.registerDecoder(AppSyncModelProviderDecoder.self)
    }

    /// Gives a list the response decoded to the request to repeat for its next page.
    func attachPaging<R>(_ response: GraphQLResponse<R>, of request: GraphQLRequest<R>) {
        let value: R? =
            switch response {
            case .success(let value): value
            case .failure(.partial(let value, _)): value
            default: nil
            }
        guard let list = value as? any PageableModelList else { return }
        var variables = request.variables ?? [:]
        variables.removeValue(forKey: "nextToken")
        list.attachPaging(
            AppSyncListPager(
                plugin: self, apiName: request.apiName, document: request.document, variables: variables, decodePath: request.decodePath,
                authMode: request.authMode))
    }
}
