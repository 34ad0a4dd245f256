/// What `defineSchema { model in … }` fills in: generated `X+Schema.swift` files set its plural
/// names and auth rules and call ``attributes(_:)`` and ``fields(_:)``.
public struct ModelSchemaDefinition {
    let name: String
    /// The plural of the name, as older generated files set it.
    public var pluralName: String?
    /// The plural the list query is named after.
    public var listPluralName: String?
    /// The plural the sync query is named after.
    public var syncPluralName: String?
    /// The model's auth rules.
    public var authRules: AuthRules
    var fields: ModelFields = [:]
    var primaryKeyFields: [ModelFieldName] = []
    var attributes: [ModelAttribute]

    init(name: String, attributes: [ModelAttribute] = []) {
        self.name = name
        self.authRules = []
        self.attributes = attributes
    }

    /// Adds fields (a later field of the same name replaces an earlier one).
    public mutating func fields(_ fields: ModelFieldDefinition...) {
        for definition in fields {
            let field = definition.modelField
            self.fields[field.name] = field
        }
    }

    /// Sets the model's attributes; the first `.primaryKey` names the key.
    public mutating func attributes(_ attributes: ModelAttribute...) {
        self.attributes = attributes
        for attribute in attributes {
            if case .primaryKey(let fields) = attribute {
                primaryKeyFields = fields
                break
            }
        }
    }

    func build() -> ModelSchema {
        ModelSchema(
            name: name, pluralName: pluralName, listPluralName: listPluralName, syncPluralName: syncPluralName,
            authRules: authRules, attributes: attributes, fields: fields, primaryKeyFieldKeys: primaryKeyFields)
    }
}

/// One field as `defineSchema` declares it: `.field(post.title, is: .required, ofType: .string)`,
/// `.hasMany(…)`, `.hasOne(…)`, `.belongsTo(…)`.
public enum ModelFieldDefinition: Sendable {
    /// A field with everything said.
    case field(
        name: String, type: ModelFieldType, nullability: ModelFieldNullability, isReadOnly: Bool,
        association: ModelAssociation?, attributes: [ModelFieldAttribute], authRules: AuthRules)

    /// A field named by a coding key.
    public static func field(
        _ key: any CodingKey, is nullability: ModelFieldNullability = .required, isReadOnly: Bool = false,
        ofType type: ModelFieldType = .string, attributes: [ModelFieldAttribute] = [], association: ModelAssociation? = nil,
        authRules: AuthRules = []
    ) -> ModelFieldDefinition {
        .field(
            name: key.stringValue, type: type, nullability: nullability, isReadOnly: isReadOnly, association: association,
            attributes: attributes, authRules: authRules)
    }

    /// The `id` primary key of older generated files.
    public static func id(_ key: any CodingKey) -> ModelFieldDefinition { id(key.stringValue) }

    /// The `id` primary key of older generated files.
    public static func id(_ name: String = "id") -> ModelFieldDefinition {
        .field(
            name: name, type: .string, nullability: .required, isReadOnly: false, association: nil, attributes: [.primaryKey],
            authRules: [])
    }

    /// A list of `type` models whose `associatedKey` holds this one's key.
    public static func hasMany(
        _ key: any CodingKey, is nullability: ModelFieldNullability = .required, isReadOnly: Bool = false,
        ofType type: any Model.Type, associatedWith associatedKey: any CodingKey
    ) -> ModelFieldDefinition {
        .field(
            key, is: nullability, isReadOnly: isReadOnly, ofType: .collection(of: type),
            association: .hasMany(associatedWith: associatedKey))
    }

    /// A list of `type` models whose `associatedKeys` hold this one's key.
    public static func hasMany(
        _ key: any CodingKey, is nullability: ModelFieldNullability = .required, isReadOnly: Bool = false,
        ofType type: any Model.Type, associatedFields associatedKeys: [any CodingKey]
    ) -> ModelFieldDefinition {
        .field(
            key, is: nullability, isReadOnly: isReadOnly, ofType: .collection(of: type),
            association: .hasMany(associatedWith: associatedKeys.first, associatedFields: associatedKeys))
    }

    /// One `type` model, paired with its `associatedKey`, this one's key in `targetName`.
    public static func hasOne(
        _ key: any CodingKey, is nullability: ModelFieldNullability = .required, isReadOnly: Bool = false,
        ofType type: any Model.Type, associatedWith associatedKey: any CodingKey, targetName: String? = nil
    ) -> ModelFieldDefinition {
        hasOne(key, is: nullability, isReadOnly: isReadOnly, ofType: type, associatedWith: associatedKey, targetNames: targetName.map { [$0] } ?? [])
    }

    /// One `type` model, paired with its `associatedKey`, this one's key in `targetNames`.
    public static func hasOne(
        _ key: any CodingKey, is nullability: ModelFieldNullability = .required, isReadOnly: Bool = false,
        ofType type: any Model.Type, associatedWith associatedKey: any CodingKey, targetNames: [String]
    ) -> ModelFieldDefinition {
        .field(
            key, is: nullability, isReadOnly: isReadOnly, ofType: .model(type: type),
            association: .hasOne(associatedWith: associatedKey, targetNames: targetNames))
    }

    /// One `type` model, paired with its `associatedKeys`, this one's key in `targetNames`.
    public static func hasOne(
        _ key: any CodingKey, is nullability: ModelFieldNullability = .required, isReadOnly: Bool = false,
        ofType type: any Model.Type, associatedFields associatedKeys: [any CodingKey], targetNames: [String] = []
    ) -> ModelFieldDefinition {
        .field(
            key, is: nullability, isReadOnly: isReadOnly, ofType: .model(type: type),
            association: .hasOne(associatedWith: associatedKeys.first, associatedFields: associatedKeys, targetNames: targetNames))
    }

    /// The `type` model this one belongs to, its key in `targetName`.
    public static func belongsTo(
        _ key: any CodingKey, is nullability: ModelFieldNullability = .required, isReadOnly: Bool = false,
        ofType type: any Model.Type, associatedWith associatedKey: (any CodingKey)? = nil, targetName: String? = nil
    ) -> ModelFieldDefinition {
        belongsTo(
            key, is: nullability, isReadOnly: isReadOnly, ofType: type, associatedWith: associatedKey,
            targetNames: targetName.map { [$0] } ?? [])
    }

    /// The `type` model this one belongs to, its key in `targetNames`.
    public static func belongsTo(
        _ key: any CodingKey, is nullability: ModelFieldNullability = .required, isReadOnly: Bool = false,
        ofType type: any Model.Type, associatedWith associatedKey: (any CodingKey)? = nil, targetNames: [String]
    ) -> ModelFieldDefinition {
        .field(
            key, is: nullability, isReadOnly: isReadOnly, ofType: .model(type: type),
            association: .belongsTo(associatedWith: associatedKey, targetNames: targetNames))
    }

    /// The field this definition declares.
    public var modelField: ModelField {
        switch self {
        case .field(let name, let type, let nullability, let isReadOnly, let association, let attributes, let authRules):
            ModelField(
                name: name, type: type, isRequired: nullability.isRequired, isReadOnly: isReadOnly, isArray: type.isArray,
                attributes: attributes, association: association, authRules: authRules)
        }
    }
}
