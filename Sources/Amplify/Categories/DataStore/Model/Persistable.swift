import Foundation

/// A scalar a model stores and a predicate compares: `Bool`, `Int`, `Double`, `String` and the
/// `Temporal` types.
///
/// Differs from amplify-swift in being `Sendable`, so that predicates and identifiers can cross
/// tasks in Swift 6.
public protocol Persistable: Encodable, Sendable {}

extension Bool: Persistable {}
extension Double: Persistable {}
extension Int: Persistable {}
extension String: Persistable {}

/// An enum of the GraphQL schema, as generated files declare it:
/// `public enum PostStatus: String, EnumPersistable`.
public protocol EnumPersistable: Codable, Sendable {
    /// The case's name in the schema.
    var rawValue: String { get }
    /// The case named `rawValue`, or `nil`.
    init?(rawValue: String)
}

/// A non-model type of the GraphQL schema embedded in a model, as generated files declare it:
/// `public struct Address: Embeddable` with a schema of its fields.
public protocol Embeddable: Codable, Sendable {
    /// The type's fields.
    static var schema: ModelSchema { get }
}

extension Embeddable {
    /// The schema `define` fills in.
    public static func defineSchema(
        name: String? = nil, attributes: ModelAttribute..., define: (inout ModelSchemaDefinition) -> Void
    ) -> ModelSchema {
        var definition = ModelSchemaDefinition(name: name ?? "", attributes: attributes)
        define(&definition)
        return definition.build()
    }
}

/// A stored or compared value reduced to what comparisons need: `Int` and `Double` compare as
/// numbers, enums as their raw values, temporal values as their instants.
enum PersistableValue {
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case instant(kind: Int, milliseconds: Int64)

    init?(_ value: Any?) {
        switch value {
        case nil: return nil
        case let value as Bool: self = .bool(value)
        case let value as Int: self = .int(value)
        case let value as Double: self = .double(value)
        case let value as String: self = .string(value)
        case let value as any EnumPersistable: self = .string(value.rawValue)
        case let value as Temporal.Date: self = .instant(kind: 0, milliseconds: value.epochMilliseconds)
        case let value as Temporal.DateTime: self = .instant(kind: 1, milliseconds: value.epochMilliseconds)
        case let value as Temporal.Time: self = .instant(kind: 2, milliseconds: value.epochMilliseconds)
        case let value as Foundation.Date:
            self = .instant(kind: 1, milliseconds: Temporal.DateTime(value).epochMilliseconds)
        case let value as Int64: self = .int(Int(value))
        case let value as Float: self = .double(Double(value))
        default: return nil
        }
    }

    /// How `lhs` orders against `rhs`: `nil` when they do not compare (different kinds, or
    /// booleans for anything but equality).
    static func compare(_ lhs: Any?, _ rhs: Any?, orderingBooleans: Bool = false) -> ComparisonResult? {
        guard let lhs = PersistableValue(lhs), let rhs = PersistableValue(rhs) else { return nil }
        func order<T: Comparable>(_ one: T, _ other: T) -> ComparisonResult {
            one < other ? .orderedAscending : one == other ? .orderedSame : .orderedDescending
        }
        switch (lhs, rhs) {
        case (.bool(let one), .bool(let other)):
            return one == other ? .orderedSame : orderingBooleans ? order(one ? 1 : 0, other ? 1 : 0) : .orderedDescending
        case (.int(let one), .int(let other)): return order(one, other)
        case (.double(let one), .double(let other)): return order(one, other)
        case (.int(let one), .double(let other)): return order(Double(one), other)
        case (.double(let one), .int(let other)): return order(one, Double(other))
        case (.string(let one), .string(let other)): return order(one, other)
        case (.instant(let oneKind, let one), .instant(let otherKind, let other)) where oneKind == otherKind: return order(one, other)
        default: return nil
        }
    }

    /// Whether two values are equal (both `nil` counts as equal).
    static func equal(_ lhs: Any?, _ rhs: Any?) -> Bool {
        if isNil(lhs), isNil(rhs) { return true }
        return compare(lhs, rhs) == .orderedSame
    }

    static func isNil(_ value: Any?) -> Bool {
        guard let value else { return true }
        if case Optional<Any>.none = value { return true }
        return false
    }

    /// A value's text in an identifier: temporal values in their ISO 8601 form.
    static func text(of value: any Persistable) -> String {
        switch value {
        case let value as any TemporalSpec: value.iso8601String
        case let value as String: value
        default: "\(value)"
        }
    }
}
