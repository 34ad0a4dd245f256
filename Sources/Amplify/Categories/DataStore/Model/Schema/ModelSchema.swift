/// A field's name in a model.
public typealias ModelFieldName = String
/// A model's name.
public typealias ModelName = String
/// A model's fields by name.
public typealias ModelFields = [String: ModelField]

/// What a generated `X+Schema.swift` says of a model: its name, plural names, fields, primary
/// key, indexes and auth rules. Built by `defineSchema` (see ``ModelSchemaDefinition``), or from
/// a Gen 2 `model_introspection`.
public struct ModelSchema: Sendable {
    /// The model's name (`Post`).
    public let name: String
    /// The plural of the name, as older generated files set it (`Posts`).
    public let pluralName: String?
    /// The plural the list query is named after (`listPosts`).
    public let listPluralName: String?
    /// The plural the sync query is named after (`syncPosts`).
    public let syncPluralName: String?
    /// Who may do what (`@auth` rules).
    public let authRules: AuthRules
    /// The fields by name.
    public let fields: ModelFields
    /// The model's attributes: its primary key, indexes, whether it is a system model.
    public let attributes: [ModelAttribute]
    /// The `.index` attributes.
    public let indexes: [ModelAttribute]
    /// The fields in a fixed order: the primary key's fields in their order, then the others
    /// alphabetically, associations last — the order GraphQL documents list them in.
    public let sortedFields: [ModelField]
    /// The primary key: the fields `.primaryKey(fields:)` names, else those of the nameless
    /// `.index`, else a field marked `.primaryKey`, else `id`. Empty for a schema with none (an
    /// embedded type's).
    public let primaryKey: ModelPrimaryKey

    /// A schema.
    public init(
        name: String, pluralName: String? = nil, listPluralName: String? = nil, syncPluralName: String? = nil,
        authRules: AuthRules = [], attributes: [ModelAttribute] = [], fields: ModelFields = [:],
        primaryKeyFieldKeys: [ModelFieldName] = []
    ) {
        self.name = name
        self.pluralName = pluralName
        self.listPluralName = listPluralName
        self.syncPluralName = syncPluralName
        self.authRules = authRules
        self.attributes = attributes
        self.fields = fields
        self.indexes = attributes.filter { if case .index = $0 { true } else { false } }
        let primaryKey = ModelPrimaryKey(allFields: fields, attributes: attributes, primaryKeyFieldKeys: primaryKeyFieldKeys)
        self.primaryKey = primaryKey
        self.sortedFields = fields.values.sorted { one, other in
            switch (primaryKey.indexOfField(named: one.name), primaryKey.indexOfField(named: other.name)) {
            case (let oneIndex?, let otherIndex?): return oneIndex < otherIndex
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil):
                if one.hasAssociation != other.hasAssociation { return !one.hasAssociation }
                return one.name < other.name
            }
        }
    }

    /// The field named `name`, if the model has one.
    public func field(withName name: String) -> ModelField? {
        fields[name]
    }

    /// The fields of the nameless `.index` (a custom primary key in older generated files).
    public var primaryKeyIndexFields: [ModelFieldName]? {
        for attribute in attributes {
            if case .index(let fields, nil) = attribute, !fields.isEmpty { return fields }
        }
        return nil
    }

    /// Whether the model is synchronised (not a system model).
    public var isSyncable: Bool { !attributes.contains(.isSystem) }
    /// Whether the model is a system model.
    public var isSystem: Bool { attributes.contains(.isSystem) }
    /// Whether the model has auth rules.
    public var hasAuthenticationRules: Bool { !authRules.isEmpty }
    /// Whether any field is an association.
    public var hasAssociations: Bool { fields.values.contains { $0.hasAssociation } }
}

/// An attribute of a model.
public enum ModelAttribute: Equatable, Sendable {
    /// A secondary index (`@index`), or with no name the primary key of older generated files.
    case index(fields: [ModelFieldName], name: String?)
    /// A model Amplify or a plugin uses, not the app.
    case isSystem
    /// The primary key (`@primaryKey`).
    case primaryKey(fields: [ModelFieldName])

    /// The primary key named by the model's coding keys.
    public static func primaryKey(fields: [any CodingKey]) -> ModelAttribute {
        .primaryKey(fields: fields.map(\.stringValue))
    }
}

/// An attribute of a field: older generated files mark the primary key with it (`.id()`).
public enum ModelFieldAttribute: Equatable, Sendable {
    /// The field is the primary key (use the schema's `primaryKey` instead).
    case primaryKey
}

/// A field of a model: its name, type, whether it is required, read-only or a list, and its
/// association.
public struct ModelField: Sendable {
    /// The field's name.
    public let name: ModelFieldName
    /// The field's type.
    public let type: ModelFieldType
    /// Whether the field must have a value.
    public let isRequired: Bool
    /// Whether the service sets it (`createdAt`, `updatedAt`): never sent in an input.
    public let isReadOnly: Bool
    /// Whether the field is a list.
    public let isArray: Bool
    /// The field's attributes.
    public let attributes: [ModelFieldAttribute]
    /// The association, for a field that holds other models.
    public let association: ModelAssociation?
    /// Field-level auth rules.
    public let authRules: AuthRules

    /// A field.
    public init(
        name: String, type: ModelFieldType, isRequired: Bool = false, isReadOnly: Bool = false, isArray: Bool = false,
        attributes: [ModelFieldAttribute] = [], association: ModelAssociation? = nil, authRules: AuthRules = []
    ) {
        self.name = name
        self.type = type
        self.isRequired = isRequired
        self.isReadOnly = isReadOnly
        self.isArray = isArray
        self.attributes = attributes
        self.association = association
        self.authRules = authRules
    }

    /// Whether the field is marked `.primaryKey` (older generated files).
    public var isPrimaryKey: Bool { attributes.contains(.primaryKey) }
    /// Whether the field is an association.
    public var hasAssociation: Bool { association != nil }
    /// The associated model's name, for a model or collection field.
    public var associatedModelName: ModelName? {
        switch type {
        case .model(let name), .collection(let name): name
        default: nil
        }
    }
    /// Whether this field holds the foreign key (`belongsTo`).
    public var isAssociationOwner: Bool {
        if case .belongsTo = association { true } else { false }
    }
    /// The schema of an embedded type's field.
    public var embeddedTypeSchema: ModelSchema? {
        switch type {
        case .embedded(_, let schema), .embeddedCollection(_, let schema): schema
        default: nil
        }
    }
    /// Whether the field holds an embedded (non-model) type.
    public var isEmbeddedType: Bool {
        switch type {
        case .embedded, .embeddedCollection: true
        default: false
        }
    }
    /// The field on the associated model this one pairs with, read from the registry.
    public var associatedField: ModelField? {
        guard let association, let modelName = associatedModelName else { return nil }
        let key: String? =
            switch association {
            case .belongsTo(let name, _), .hasOne(let name, _, _), .hasMany(let name, _): name
            }
        return ModelRegistry.modelSchema(from: modelName)?.field(withName: key ?? modelName)
    }
    /// The names of the fields on the other side that hold the key: a `hasMany`'s associated
    /// fields, or the associated model's primary key.
    public var associatedFieldNames: [String] {
        switch association {
        case .hasMany(let name, let names): names.isEmpty ? (name.map { [$0] } ?? []) : names
        case .hasOne, .belongsTo:
            associatedModelName.flatMap { ModelRegistry.modelSchema(from: $0) }?.primaryKey.fields.map(\.name) ?? []
        case nil: []
        }
    }
}

/// The fields that identify a model.
public struct ModelPrimaryKey: Sendable {
    /// The key's fields, in order.
    public let fields: [ModelField]

    /// Whether the key has more than one field.
    public var isCompositeKey: Bool { fields.count > 1 }

    init(allFields: ModelFields, attributes: [ModelAttribute], primaryKeyFieldKeys: [String]) {
        if !primaryKeyFieldKeys.isEmpty {
            fields = primaryKeyFieldKeys.compactMap { allFields[$0] }
            return
        }
        for attribute in attributes {
            if case .index(let names, nil) = attribute, !names.isEmpty {
                fields = names.compactMap { allFields[$0] }
                return
            }
        }
        let marked = allFields.values.filter(\.isPrimaryKey)
        if !marked.isEmpty {
            fields = marked
        } else {
            fields = allFields["id"].map { [$0] } ?? []
        }
    }

    /// Whether the key has a field named `name`.
    public func contains(named name: ModelFieldName) -> Bool {
        fields.contains { $0.name == name }
    }

    /// The position of the field named `name` in the key.
    public func indexOfField(named name: ModelFieldName) -> Int? {
        fields.firstIndex { $0.name == name }
    }
}
