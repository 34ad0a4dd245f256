import Amplify

/// The associations a request includes, picked from the model's root path:
/// `{ post in [post.comments, post.blog] }`.
public typealias IncludedAssociations<M: Model> = (ModelPath<M>) -> [any PropertyContainerPath]

/// Requests for models, whose documents are the ones amplify-swift builds for the same model:
/// `Amplify.API.query(request: .list(Post.self, where: Post.keys.rating > 3))`.
///
/// Beyond amplify-swift: `.list` takes a `nextToken` to start from, and `.update`/`.delete`
/// take the `version` a backend with conflict detection needs (`_version`).
extension GraphQLRequest {
    /// The models of `modelType` matching `predicate`, `limit` a page (1,000 unless said), from
    /// `nextToken`; the result pages with `hasNextPage()`/`getNextPage()`.
    public static func list<M: Model>(
        _ modelType: M.Type, where predicate: (any QueryPredicate)? = nil, includes: IncludedAssociations<M> = { _ in [] },
        limit: Int? = nil, nextToken: String? = nil, authMode: AWSAuthorizationType? = nil
    ) -> GraphQLRequest<List<M>> {
        var builder = ModelBasedGraphQLDocumentBuilder(modelSchema: modelType.schema, operationType: .query)
        builder.add(decorator: DirectiveNameDecorator(type: .list))
        include(includes, of: modelType, in: &builder)
        if let predicate { builder.add(decorator: FilterDecorator(filter: predicate.graphQLFilter(for: modelType.schema))) }
        builder.add(decorator: PaginationDecorator(limit: limit, nextToken: nextToken))
        return request(builder.build(), List<M>.self, authMode)
    }

    /// The model of `modelType` whose `id` is `id`, or `nil`.
    public static func get<M: Model>(
        _ modelType: M.Type, byId id: String, includes: IncludedAssociations<M> = { _ in [] }, authMode: AWSAuthorizationType? = nil
    ) -> GraphQLRequest<M?> {
        var builder = ModelBasedGraphQLDocumentBuilder(modelSchema: modelType.schema, operationType: .query)
        builder.add(decorator: DirectiveNameDecorator(type: .get))
        include(includes, of: modelType, in: &builder)
        builder.add(decorator: ModelIdDecorator(id: id))
        return request(builder.build(), M?.self, authMode)
    }

    /// The model of `modelType` whose `id` is `id`, or `nil`.
    public static func get<M: Model>(
        _ modelType: M.Type, byIdentifier id: String, includes: IncludedAssociations<M> = { _ in [] }, authMode: AWSAuthorizationType? = nil
    ) -> GraphQLRequest<M?> where M: ModelIdentifiable, M.IdentifierFormat == ModelIdentifierFormat.Default {
        get(modelType, byId: id, includes: includes, authMode: authMode)
    }

    /// The model of `modelType` with this identifier (a custom or composite key), or `nil`.
    public static func get<M: Model>(
        _ modelType: M.Type, byIdentifier id: ModelIdentifier<M, M.IdentifierFormat>, includes: IncludedAssociations<M> = { _ in [] },
        authMode: AWSAuthorizationType? = nil
    ) -> GraphQLRequest<M?> where M: ModelIdentifiable {
        var builder = ModelBasedGraphQLDocumentBuilder(modelSchema: modelType.schema, operationType: .query)
        builder.add(decorator: DirectiveNameDecorator(type: .get))
        include(includes, of: modelType, in: &builder)
        builder.add(decorator: ModelIdDecorator(identifierFields: id.fields))
        return request(builder.build(), M?.self, authMode)
    }

    /// Creates `model`.
    public static func create<M: Model>(
        _ model: M, includes: IncludedAssociations<M> = { _ in [] }, authMode: AWSAuthorizationType? = nil
    ) -> GraphQLRequest<M> {
        mutation(of: model, modelSchema: schema(of: model), includes: includes, type: .create, authMode: authMode)
    }

    /// Creates `model` under `modelSchema`.
    public static func create<M: Model>(
        _ model: M, modelSchema: ModelSchema, includes: IncludedAssociations<M> = { _ in [] }, authMode: AWSAuthorizationType? = nil
    ) -> GraphQLRequest<M> {
        mutation(of: model, modelSchema: modelSchema, includes: includes, type: .create, authMode: authMode)
    }

    /// Updates `model` if `predicate` holds for the stored one; `version` is the `_version` it
    /// was read at, on an API with conflict detection.
    public static func update<M: Model>(
        _ model: M, where predicate: (any QueryPredicate)? = nil, includes: IncludedAssociations<M> = { _ in [] }, version: Int? = nil,
        authMode: AWSAuthorizationType? = nil
    ) -> GraphQLRequest<M> {
        mutation(of: model, modelSchema: schema(of: model), where: predicate, includes: includes, type: .update, version: version, authMode: authMode)
    }

    /// Updates `model` under `modelSchema` if `predicate` holds for the stored one.
    public static func update<M: Model>(
        _ model: M, modelSchema: ModelSchema, where predicate: (any QueryPredicate)? = nil, includes: IncludedAssociations<M> = { _ in [] },
        authMode: AWSAuthorizationType? = nil
    ) -> GraphQLRequest<M> {
        mutation(of: model, modelSchema: modelSchema, where: predicate, includes: includes, type: .update, authMode: authMode)
    }

    /// Deletes `model` if `predicate` holds for the stored one; `version` as for `update`.
    public static func delete<M: Model>(
        _ model: M, where predicate: (any QueryPredicate)? = nil, includes: IncludedAssociations<M> = { _ in [] }, version: Int? = nil,
        authMode: AWSAuthorizationType? = nil
    ) -> GraphQLRequest<M> {
        mutation(of: model, modelSchema: schema(of: model), where: predicate, includes: includes, type: .delete, version: version, authMode: authMode)
    }

    /// Deletes `model` under `modelSchema` if `predicate` holds for the stored one.
    public static func delete<M: Model>(
        _ model: M, modelSchema: ModelSchema, where predicate: (any QueryPredicate)? = nil, includes: IncludedAssociations<M> = { _ in [] },
        authMode: AWSAuthorizationType? = nil
    ) -> GraphQLRequest<M> {
        mutation(of: model, modelSchema: modelSchema, where: predicate, includes: includes, type: .delete, authMode: authMode)
    }

    /// A create, update or delete of `model`.
    public static func mutation<M: Model>(
        of model: M, modelSchema: ModelSchema? = nil, where predicate: (any QueryPredicate)? = nil,
        includes: IncludedAssociations<M> = { _ in [] }, type: GraphQLMutationType, version: Int? = nil,
        authMode: AWSAuthorizationType? = nil
    ) -> GraphQLRequest<M> {
        let modelSchema = modelSchema ?? model.schema
        var builder = ModelBasedGraphQLDocumentBuilder(modelSchema: modelSchema, operationType: .mutation)
        builder.add(decorator: DirectiveNameDecorator(type: type))
        include(includes, of: M.self, in: &builder)
        switch type {
        case .create:
            builder.add(decorator: ModelDecorator(model: model, mutationType: type))
        case .update:
            builder.add(decorator: ModelDecorator(model: model, mutationType: type))
        case .delete:
            builder.add(decorator: ModelIdDecorator(model: model, schema: modelSchema))
        }
        if type != .create, let predicate {
            builder.add(decorator: FilterDecorator(filter: predicate.graphQLFilter(for: modelSchema)))
        }
        if let version { builder.add(decorator: VersionDecorator(version: version)) }
        return request(builder.build(), M.self, authMode)
    }

    /// The models of `modelType` as they are created, updated or deleted.
    public static func subscription<M: Model>(
        of modelType: M.Type, type: GraphQLSubscriptionType, includes: IncludedAssociations<M> = { _ in [] },
        authMode: AWSAuthorizationType? = nil
    ) -> GraphQLRequest<M> {
        var builder = ModelBasedGraphQLDocumentBuilder(modelSchema: modelType.schema, operationType: .subscription)
        builder.add(decorator: DirectiveNameDecorator(type: type))
        include(includes, of: modelType, in: &builder)
        return request(builder.build(), M.self, authMode)
    }

    private static func include<M: Model>(
        _ includes: IncludedAssociations<M>, of modelType: M.Type, in builder: inout ModelBasedGraphQLDocumentBuilder
    ) {
        guard let root = modelType.rootPath as? ModelPath<M> else { return }
        builder.add(decorator: IncludeAssociationDecorator(includes(root)))
    }

    private static func schema<M: Model>(of model: M) -> ModelSchema {
        (ModelRegistry.modelType(from: model.modelName) ?? M.self).schema
    }

    private static func request<T>(_ document: any SingleDirectiveGraphQLDocument, _ type: T.Type, _ authMode: AWSAuthorizationType?)
        -> GraphQLRequest<T>
    {
        GraphQLRequest<T>(
            document: document.stringValue, variables: document.variables, responseType: type, decodePath: document.name, authMode: authMode)
    }
}
