import Amplify

/// One step of building a model's document: names it, adds its key, input, filter, paging or
/// included associations.
public protocol ModelBasedGraphQLDocumentDecorator {
    /// `document` with this step's part added.
    func decorate(_ document: any SingleDirectiveGraphQLDocument, modelSchema: ModelSchema) -> any SingleDirectiveGraphQLDocument
}

/// Builds a model's document from its schema and decorators, as amplify-swift does.
public struct ModelBasedGraphQLDocumentBuilder {
    private var decorators: [any ModelBasedGraphQLDocumentDecorator] = []
    private var document: any SingleDirectiveGraphQLDocument
    private let modelSchema: ModelSchema

    /// A builder for an operation on the model of `modelSchema`: associated models select only
    /// their keys when the model is registered with property paths (generated with lazy loading).
    public init(modelSchema: ModelSchema, operationType: GraphQLOperationType, primaryKeysOnly: Bool = true) {
        self.modelSchema = modelSchema
        let keysOnly = primaryKeysOnly && ModelRegistry.modelType(from: modelSchema.name)?.rootPath != nil
        switch operationType {
        case .query: document = GraphQLQuery(modelSchema: modelSchema, primaryKeysOnly: keysOnly)
        case .mutation: document = GraphQLMutation(modelSchema: modelSchema, primaryKeysOnly: keysOnly)
        case .subscription: document = GraphQLSubscription(modelSchema: modelSchema, primaryKeysOnly: keysOnly)
        }
    }

    /// Adds a step.
    public mutating func add(decorator: any ModelBasedGraphQLDocumentDecorator) {
        decorators.append(decorator)
    }

    /// The document with every step applied.
    public func build() -> any SingleDirectiveGraphQLDocument {
        decorators.reduce(document) { document, decorator in decorator.decorate(document, modelSchema: modelSchema) }
    }
}

/// Names the document's field after the operation and model: `getPost`, `createPost`, `onCreatePost`.
public struct DirectiveNameDecorator: ModelBasedGraphQLDocumentDecorator {
    private let name: @Sendable (ModelSchema) -> String

    /// A query's name.
    public init(type: GraphQLQueryType) { name = { $0.graphQLName(queryType: type) } }
    /// A mutation's name.
    public init(type: GraphQLMutationType) { name = { $0.graphQLName(mutationType: type) } }
    /// A subscription's name.
    public init(type: GraphQLSubscriptionType) { name = { $0.graphQLName(subscriptionType: type) } }

    public func decorate(_ document: any SingleDirectiveGraphQLDocument, modelSchema: ModelSchema) -> any SingleDirectiveGraphQLDocument {
        document.copy(name: name(modelSchema))
    }
}

/// Adds a model's key: the arguments of a `get` (a variable for one field, inline values for a
/// composite key), or a delete's `input`.
public struct ModelIdDecorator: ModelBasedGraphQLDocumentDecorator {
    private var fields: [(name: String, value: any GraphQLDocumentValueRepresentable, type: String)] = []

    /// The key of `model`.
    public init(model: any Model, schema: ModelSchema) {
        for (index, field) in model.identifier(schema: schema).fields.enumerated() {
            guard let value = model.graphQLInputForPrimaryKey(modelFieldName: field.name, modelSchema: schema) else { continue }
            fields.append((field.name, value, index == 0 ? "ID!" : "String!"))
        }
    }

    /// The key of these fields.
    public init(identifierFields: [(name: String, value: any Persistable)]) {
        for (index, field) in identifierFields.enumerated() {
            fields.append((field.name, Self.documentValue(field.value), index == 0 ? "ID!" : "String!"))
        }
    }

    /// The key of a lazy reference.
    public init(identifiers: [LazyReferenceIdentifier]) {
        for (index, identifier) in identifiers.enumerated() {
            fields.append((identifier.name, identifier.value, index == 0 ? "ID!" : "String!"))
        }
    }

    /// The key `id`.
    public init(id: String, fields: [String: String]? = nil) {
        self.fields = [(ModelIdentifierFormat.Default.name, id, "ID!")]
        for (name, value) in (fields ?? [:]).sorted(by: { $0.key < $1.key }) { self.fields.append((name, value, "String!")) }
    }

    public func decorate(_ document: any SingleDirectiveGraphQLDocument, modelSchema: ModelSchema) -> any SingleDirectiveGraphQLDocument {
        var inputs = document.inputs
        switch document.operationType {
        case .mutation:
            var object: [String: (any Sendable)?] = [:]
            for field in fields { object[field.name] = field.value.graphQLDocumentValue }
            inputs["input"] = GraphQLDocumentInput(type: "\(document.name.pascalCased())Input!", value: .object(object))
        case .query:
            for field in fields {
                inputs[field.name] = GraphQLDocumentInput(type: field.type, value: fields.count > 1 ? .inline(field.value) : .scalar(field.value))
            }
        case .subscription:
            break
        }
        return document.copy(inputs: inputs)
    }

    private static func documentValue(_ value: any Persistable) -> any GraphQLDocumentValueRepresentable {
        switch value {
        case let value as Double: value
        case let value as Int: value
        case let value as Bool: value
        case let value as any TemporalSpec: value.iso8601String
        default: "\(value)"
        }
    }
}

/// Adds a create's or update's `input` (an owner field left `nil` is left out, so the service
/// fills it in).
public struct ModelDecorator: ModelBasedGraphQLDocumentDecorator {
    private let model: any Model
    private let mutationType: GraphQLMutationType

    /// The input of `model`.
    public init(model: any Model, mutationType: GraphQLMutationType) {
        self.model = model
        self.mutationType = mutationType
    }

    public func decorate(_ document: any SingleDirectiveGraphQLDocument, modelSchema: ModelSchema) -> any SingleDirectiveGraphQLDocument {
        var input = model.graphQLInputForMutation(modelSchema, mutationType: mutationType)
        for rule in modelSchema.authRules where rule.allow == .owner {
            let owner = rule.getOwnerFieldOrDefault()
            if let value = input[owner], value == nil { input.removeValue(forKey: owner) }
        }
        var inputs = document.inputs
        inputs["input"] = GraphQLDocumentInput(type: "\(document.name.pascalCased())Input!", value: .object(input))
        return document.copy(inputs: inputs)
    }
}

/// Adds a `_version` to a mutation's `input`, for APIs with conflict detection.
public struct VersionDecorator: ModelBasedGraphQLDocumentDecorator {
    private let version: Int

    /// The version the change is based on.
    public init(version: Int) { self.version = version }

    public func decorate(_ document: any SingleDirectiveGraphQLDocument, modelSchema: ModelSchema) -> any SingleDirectiveGraphQLDocument {
        guard var input = document.inputs["input"], case .object(var object) = input.value else { return document }
        object["_version"] = version
        input.value = .object(object)
        var inputs = document.inputs
        inputs["input"] = input
        return document.copy(inputs: inputs)
    }
}

/// Adds a filter (`filter: ModelPostFilterInput` on a query, `condition:
/// ModelPostConditionInput` on a mutation); an empty filter adds nothing.
public struct FilterDecorator: ModelBasedGraphQLDocumentDecorator {
    private let filter: GraphQLFilter

    /// The filter.
    public init(filter: GraphQLFilter) { self.filter = filter }

    public func decorate(_ document: any SingleDirectiveGraphQLDocument, modelSchema: ModelSchema) -> any SingleDirectiveGraphQLDocument {
        guard !filter.isEmpty else { return document }
        var inputs = document.inputs
        let object = filter.mapValues { Optional($0) }
        switch document.operationType {
        case .mutation: inputs["condition"] = GraphQLDocumentInput(type: "Model\(modelSchema.name)ConditionInput", value: .object(object))
        case .query: inputs["filter"] = GraphQLDocumentInput(type: "Model\(modelSchema.name)FilterInput", value: .object(object))
        case .subscription: inputs["filter"] = GraphQLDocumentInput(type: "ModelSubscription\(modelSchema.name)FilterInput", value: .object(object))
        }
        return document.copy(inputs: inputs)
    }
}

/// Adds a list's paging: `limit` (1,000 unless given), `nextToken`, and the `items`/`nextToken`
/// selection.
public struct PaginationDecorator: ModelBasedGraphQLDocumentDecorator {
    private let limit: Int?
    private let nextToken: String?

    /// Paging from `nextToken`, `limit` at a time.
    public init(limit: Int? = nil, nextToken: String? = nil) {
        self.limit = limit
        self.nextToken = nextToken
    }

    public func decorate(_ document: any SingleDirectiveGraphQLDocument, modelSchema: ModelSchema) -> any SingleDirectiveGraphQLDocument {
        var inputs = document.inputs
        inputs["limit"] = GraphQLDocumentInput(type: "Int", value: .scalar(limit ?? 1_000))
        if let nextToken { inputs["nextToken"] = GraphQLDocumentInput(type: "String", value: .scalar(nextToken)) }
        guard let selectionSet = document.selectionSet else { return document.copy(inputs: inputs) }
        let root = SelectionSet(value: SelectionSetField(fieldType: .pagination))
        selectionSet.value.name = "items"
        root.addChild(settingParentOf: selectionSet)
        root.addChild(settingParentOf: SelectionSet(value: SelectionSetField(name: "nextToken", fieldType: .value)))
        return document.copy(inputs: inputs, selectionSet: root)
    }
}

/// Adds the associations the caller asked to include (`includes: { post in [post.comments] }`),
/// each with its models' fields.
public struct IncludeAssociationDecorator: ModelBasedGraphQLDocumentDecorator {
    let includedAssociations: [any PropertyContainerPath]

    /// Includes these paths.
    public init(_ includedAssociations: [any PropertyContainerPath] = []) {
        self.includedAssociations = includedAssociations
    }

    public func decorate(_ document: any SingleDirectiveGraphQLDocument, modelSchema: ModelSchema) -> any SingleDirectiveGraphQLDocument {
        guard !includedAssociations.isEmpty, let selectionSet = document.selectionSet else { return document }
        for association in includedAssociations {
            if let nested = association.asSelectionSet() { selectionSet.merge(with: nested) }
        }
        return document.copy(selectionSet: selectionSet)
    }
}

extension PropertyContainerPath {
    /// The selection of this path from the root's child down: each model's fields, keys only for
    /// its associations; `nil` for the root itself or a model that is not registered.
    func asSelectionSet() -> SelectionSet? {
        var nodes: [any PropertyContainerPath] = []
        var node: (any PropertyContainerPath)? = self
        while let current = node, current.getMetadata().parent != nil {
            nodes.append(current)
            node = current.getMetadata().parent as? any PropertyContainerPath
        }
        var selection: SelectionSet?
        for node in nodes {
            let metadata = node.getMetadata()
            guard let schema = ModelRegistry.modelSchema(from: node.getModelType().modelName) else { return nil }
            let set = SelectionSet(value: SelectionSetField(name: metadata.name, fieldType: metadata.isCollection ? .collection : .model))
            set.withModelFields(schema.graphQLFields, primaryKeysOnly: true)
            if let selection { set.replaceChild(selection) }
            selection = set
        }
        return selection
    }
}
