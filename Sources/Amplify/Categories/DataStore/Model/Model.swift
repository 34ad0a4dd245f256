import Foundation

/// A model: a type generated from the GraphQL schema (`amplify codegen models`, or
/// `npx ampx generate graphql-client-code --format modelgen`) that reads and writes the records
/// of one `@model` type, as amplify-swift's `Model` does.
///
/// Differs from amplify-swift in what Swift 6 requires: a model is `Sendable` (it travels in
/// `GraphQLRequest`s and their results to other tasks); generated models are.
public protocol Model: Codable, Sendable {
    /// The model's schema: fields, primary key, indexes, auth rules.
    static var schema: ModelSchema { get }
    /// The root of the model's property paths (generated files with lazy loading set it).
    static var rootPath: (any PropertyContainerPath)? { get }
    /// The model's name, as registered in ``ModelRegistry``.
    static var modelName: String { get }
    /// The model's name, as registered in ``ModelRegistry``.
    var modelName: String { get }
    /// The instance's identifier under `schema`'s primary key.
    func identifier(schema: ModelSchema) -> any ModelIdentifierProtocol
    /// The instance's identifier as text: the key's one value, or each value quoted and joined
    /// with `#` for a composite key.
    var identifier: String { get }
}

extension Model {
    /// The type's name.
    public static var modelName: String { String(describing: self) }
    /// The type's name.
    public var modelName: String { Self.modelName }
    /// No paths, unless the generated file says otherwise.
    public static var rootPath: (any PropertyContainerPath)? { nil }
    /// An empty schema named after the type, unless the generated file defines one.
    public static var schema: ModelSchema { ModelSchema(name: modelName) }
    /// The type's schema.
    public var schema: ModelSchema { Self.schema }

    /// The instance's identifier under its type's schema.
    public var identifier: String { identifier(schema: Self.schema).stringValue }

    public func identifier(schema: ModelSchema) -> any ModelIdentifierProtocol {
        let fields: ModelIdentifierProtocol.Fields = schema.primaryKey.fields.map { field in
            let value: any Persistable =
                switch self[field.name] {
                case let value as any Persistable: value
                case let value as any EnumPersistable: value.rawValue
                case .some(.some(let value)): String(describing: value)
                default: ""
                }
            return (name: field.name, value: value)
        }
        if fields.count == 1, fields[0].name == ModelIdentifierFormat.Default.name {
            return ModelIdentifier<Self, ModelIdentifierFormat.Default>(fields: fields)
        }
        return ModelIdentifier<Self, ModelIdentifierFormat.Custom>(fields: fields)
    }

    /// The schema `define` fills in, named `name` or after the type.
    public static func defineSchema(
        name: String? = nil, attributes: ModelAttribute..., define: (inout ModelSchemaDefinition) -> Void
    ) -> ModelSchema {
        var definition = ModelSchemaDefinition(name: name ?? modelName, attributes: attributes)
        define(&definition)
        return definition.build()
    }

    /// An auth rule, as generated schemas write them: `rule(allow: .owner, operations: [.read])`.
    public static func rule(
        allow: AuthStrategy, ownerField: String? = nil, identityClaim: String? = nil, groupClaim: String? = nil,
        groups: [String] = [], groupsField: String? = nil, provider: AuthRuleProvider? = nil, operations: [ModelOperation] = []
    ) -> AuthRule {
        AuthRule(
            allow: allow, ownerField: ownerField, identityClaim: identityClaim, groupClaim: groupClaim, groups: groups,
            groupsField: groupsField, provider: provider, operations: operations)
    }

    /// The value of the property named `key`: `nil` when the model has no such property,
    /// `.some(nil)` when it has one and it is `nil`. Lazy references are read by their field's
    /// name (`post` for the stored `_post`).
    public subscript(_ key: String) -> Any?? {
        if let holder = self as? any JSONValueHolder { return holder.jsonValue(for: key) }
        let mirror = Mirror(reflecting: self)
        guard let child = mirror.children.first(where: { $0.label == key || $0.label == "_" + key }) else { return nil }
        if case Optional<Any>.none = child.value { return .some(nil) }
        return child.value
    }
}

/// A model whose values are held as JSON (amplify-swift's `JSONValueHolder`, which its Flutter
/// and dynamic models use): predicates and identifiers read them through it.
public protocol JSONValueHolder {
    /// The value of `key`, `nil` when there is none, `.some(nil)` when it is `null`.
    func jsonValue(for key: String) -> Any??
    /// The value of `key` under `modelSchema`.
    func jsonValue(for key: String, modelSchema: ModelSchema) -> Any??
}

/// What `amplify codegen models` writes as `AmplifyModels.swift`: registers every model of the
/// schema (`AWSAPIPlugin(modelRegistration: AmplifyModels())`).
public protocol AmplifyModelRegistration {
    /// Registers the schema's models.
    func registerModels(registry: ModelRegistry.Type)
    /// The schema's version (a hash the generator writes).
    var version: String { get }
}

extension Array where Element: Model {
    /// The one element, or `nil` when there is none.
    /// - Throws: ``DataStoreError/nonUniqueResult(model:count:)`` when there are more.
    public func unique() throws -> Element? {
        guard count <= 1 else { throw DataStoreError.nonUniqueResult(model: Element.modelName, count: count) }
        return first
    }
}
