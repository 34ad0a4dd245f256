/// How a field relates its model to another (`@hasMany`, `@hasOne`, `@belongsTo`).
public enum ModelAssociation: Sendable, Equatable {
    /// The other model holds a key of this one: a list of them.
    case hasMany(associatedFieldName: String?, associatedFieldNames: [String] = [])
    /// The other model holds a key of this one, or this one holds `targetNames`: one of them.
    case hasOne(associatedFieldName: String?, associatedFieldNames: [String] = [], targetNames: [String])
    /// This model holds the other's key in `targetNames`.
    case belongsTo(associatedFieldName: String?, targetNames: [String])

    /// A `belongsTo` with nothing named.
    public static let belongsTo: ModelAssociation = .belongsTo(associatedFieldName: nil, targetNames: [])

    /// A `belongsTo` whose key is in `targetName`.
    public static func belongsTo(targetName: String? = nil) -> ModelAssociation {
        .belongsTo(associatedFieldName: nil, targetNames: targetName.map { [$0] } ?? [])
    }

    /// A `hasMany` paired with `associatedWith` (or the fields `associatedFields`) on the other model.
    public static func hasMany(associatedWith: (any CodingKey)? = nil, associatedFields: [any CodingKey] = []) -> ModelAssociation {
        .hasMany(associatedFieldName: associatedWith?.stringValue, associatedFieldNames: associatedFields.map(\.stringValue))
    }

    /// A `hasOne` paired with `associatedWith` on the other model, its key in `targetName`.
    public static func hasOne(associatedWith: (any CodingKey)?, targetName: String? = nil) -> ModelAssociation {
        .hasOne(associatedWith: associatedWith, targetNames: targetName.map { [$0] } ?? [])
    }

    /// A `hasOne` paired with `associatedWith` (or `associatedFields`) on the other model.
    public static func hasOne(
        associatedWith: (any CodingKey)? = nil, associatedFields: [any CodingKey] = [], targetNames: [String] = []
    ) -> ModelAssociation {
        .hasOne(
            associatedFieldName: associatedWith?.stringValue, associatedFieldNames: associatedFields.map(\.stringValue),
            targetNames: targetNames)
    }

    /// A `belongsTo` paired with `associatedWith`, its key in `targetName`.
    public static func belongsTo(associatedWith: (any CodingKey)?, targetName: String?) -> ModelAssociation {
        .belongsTo(associatedFieldName: associatedWith?.stringValue, targetNames: targetName.map { [$0] } ?? [])
    }

    /// A `belongsTo` paired with `associatedWith`, its key in `targetNames`.
    public static func belongsTo(associatedWith: (any CodingKey)?, targetNames: [String] = []) -> ModelAssociation {
        .belongsTo(associatedFieldName: associatedWith?.stringValue, targetNames: targetNames)
    }
}
