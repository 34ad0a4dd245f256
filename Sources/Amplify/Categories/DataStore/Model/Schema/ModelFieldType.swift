import Foundation

/// A field's type: a scalar, an enum, an embedded (non-model) type, or another model.
public enum ModelFieldType: Sendable {
    /// `String` (also `ID`, `AWSEmail`, `AWSURL`, `AWSPhone`, `AWSIPAddress`, `AWSJSON`).
    case string
    /// `Int`.
    case int
    /// `Float`.
    case double
    /// `AWSDate`.
    case date
    /// `AWSDateTime`.
    case dateTime
    /// `AWSTime`.
    case time
    /// `AWSTimestamp` (seconds since 1970, an `Int`).
    case timestamp
    /// `Boolean`.
    case bool
    /// An enum.
    case `enum`(type: any EnumPersistable.Type)
    /// An embedded (non-model) type and its schema.
    case embedded(type: any (Codable & SendableMetatype).Type, schema: ModelSchema?)
    /// A list of an embedded type.
    case embeddedCollection(of: any (Codable & SendableMetatype).Type, schema: ModelSchema?)
    /// Another model, by name.
    case model(name: ModelName)
    /// A list of another model, by name.
    case collection(of: ModelName)

    /// Another model.
    public static func model(type: any Model.Type) -> ModelFieldType { .model(name: type.modelName) }
    /// A list of another model.
    public static func collection(of type: any Model.Type) -> ModelFieldType { .collection(of: type.modelName) }

    /// An embedded type, with its schema when it is `Embeddable`.
    public static func embedded(type: any (Codable & SendableMetatype).Type) -> ModelFieldType {
        .embedded(type: type, schema: (type as? any Embeddable.Type)?.schema)
    }

    /// A list of an embedded type, with its schema when it is `Embeddable`.
    public static func embeddedCollection(of type: any (Codable & SendableMetatype).Type) -> ModelFieldType {
        .embeddedCollection(of: type, schema: (type as? any Embeddable.Type)?.schema)
    }

    /// An embedded type (what older generated files call it).
    public static func customType(_ type: any (Codable & SendableMetatype).Type) -> ModelFieldType {
        .embedded(type: type, schema: nil)
    }

    /// Whether the type is a list.
    public var isArray: Bool {
        switch self {
        case .collection, .embeddedCollection: true
        default: false
        }
    }

    /// The field type of a Swift type: scalars, `Temporal` types, enums, models and embedded
    /// types; a type that is none of them is a `.string`.
    public static func from(type: Any.Type) -> ModelFieldType {
        switch type {
        case is String.Type: .string
        case is Int.Type, is Int64.Type: .int
        case is Double.Type: .double
        case is Bool.Type: .bool
        case is Foundation.Date.Type, is Temporal.DateTime.Type: .dateTime
        case is Temporal.Date.Type: .date
        case is Temporal.Time.Type: .time
        case let enumType as any EnumPersistable.Type: .enum(type: enumType)
        case let modelType as any Model.Type: .model(type: modelType)
        case let embeddedType as any (Codable & SendableMetatype).Type: .embedded(type: embeddedType)
        default: .string
        }
    }
}

/// Whether a field must have a value.
public enum ModelFieldNullability: Sendable {
    /// It may be `nil`.
    case optional
    /// It must have a value.
    case required

    /// Whether it is `.required`.
    public var isRequired: Bool { self == .required }
}
