/// The field named `name`, to compare: `field("rating") >= 4`.
public func field(_ name: String) -> QueryField {
    QueryField(name: name)
}

/// The comparisons a field offers, as functions and operators.
public protocol QueryFieldOperation {
    /// The field exists (or not).
    func attributeExists(_ value: Bool) -> QueryPredicateOperation
    /// The field's text begins with `value`.
    func beginsWith(_ value: String) -> QueryPredicateOperation
    /// The field is between `start` and `end`, both included.
    func between(start: any Persistable, end: any Persistable) -> QueryPredicateOperation
    /// The field's text contains `value`.
    func contains(_ value: String) -> QueryPredicateOperation
    /// The field's text does not contain `value`.
    func notContains(_ value: String) -> QueryPredicateOperation
    /// The field equals `value`.
    func eq(_ value: (any Persistable)?) -> QueryPredicateOperation
    /// The field equals the enum case `value`.
    func eq(_ value: any EnumPersistable) -> QueryPredicateOperation
    /// The field is at least `value`.
    func ge(_ value: any Persistable) -> QueryPredicateOperation
    /// The field is more than `value`.
    func gt(_ value: any Persistable) -> QueryPredicateOperation
    /// The field is at most `value`.
    func le(_ value: any Persistable) -> QueryPredicateOperation
    /// The field is less than `value`.
    func lt(_ value: any Persistable) -> QueryPredicateOperation
    /// The field is not `value`.
    func ne(_ value: (any Persistable)?) -> QueryPredicateOperation
    /// The field is not the enum case `value`.
    func ne(_ value: any EnumPersistable) -> QueryPredicateOperation

    /// `contains`.
    static func ~= (key: Self, value: String) -> QueryPredicateOperation
    /// `eq`.
    static func == (key: Self, value: (any Persistable)?) -> QueryPredicateOperation
    /// `eq` of an enum case.
    static func == (key: Self, value: any EnumPersistable) -> QueryPredicateOperation
    /// `ge`.
    static func >= (key: Self, value: any Persistable) -> QueryPredicateOperation
    /// `gt`.
    static func > (key: Self, value: any Persistable) -> QueryPredicateOperation
    /// `le`.
    static func <= (key: Self, value: any Persistable) -> QueryPredicateOperation
    /// `lt`.
    static func < (key: Self, value: any Persistable) -> QueryPredicateOperation
    /// `ne`.
    static func != (key: Self, value: (any Persistable)?) -> QueryPredicateOperation
    /// `ne` of an enum case.
    static func != (key: Self, value: any EnumPersistable) -> QueryPredicateOperation
}

/// What every field offers once it can name itself: the comparisons and their operators.
public protocol QueryFieldNaming: QueryFieldOperation {
    /// The field's name.
    var fieldName: String { get }
}

extension QueryFieldNaming {
    private func compare(_ comparison: QueryOperator) -> QueryPredicateOperation {
        QueryPredicateOperation(field: fieldName, operator: comparison)
    }

    public func attributeExists(_ value: Bool) -> QueryPredicateOperation { compare(.attributeExists(value)) }
    public func beginsWith(_ value: String) -> QueryPredicateOperation { compare(.beginsWith(value)) }
    public func between(start: any Persistable, end: any Persistable) -> QueryPredicateOperation { compare(.between(start: start, end: end)) }
    public func contains(_ value: String) -> QueryPredicateOperation { compare(.contains(value)) }
    public func notContains(_ value: String) -> QueryPredicateOperation { compare(.notContains(value)) }
    public func eq(_ value: (any Persistable)?) -> QueryPredicateOperation { compare(.equals(value)) }
    public func eq(_ value: any EnumPersistable) -> QueryPredicateOperation { compare(.equals(value.rawValue)) }
    public func ge(_ value: any Persistable) -> QueryPredicateOperation { compare(.greaterOrEqual(value)) }
    public func gt(_ value: any Persistable) -> QueryPredicateOperation { compare(.greaterThan(value)) }
    public func le(_ value: any Persistable) -> QueryPredicateOperation { compare(.lessOrEqual(value)) }
    public func lt(_ value: any Persistable) -> QueryPredicateOperation { compare(.lessThan(value)) }
    public func ne(_ value: (any Persistable)?) -> QueryPredicateOperation { compare(.notEqual(value)) }
    public func ne(_ value: any EnumPersistable) -> QueryPredicateOperation { compare(.notEqual(value.rawValue)) }

    public static func ~= (key: Self, value: String) -> QueryPredicateOperation { key.contains(value) }
    public static func == (key: Self, value: (any Persistable)?) -> QueryPredicateOperation { key.eq(value) }
    public static func == (key: Self, value: any EnumPersistable) -> QueryPredicateOperation { key.eq(value) }
    public static func >= (key: Self, value: any Persistable) -> QueryPredicateOperation { key.ge(value) }
    public static func > (key: Self, value: any Persistable) -> QueryPredicateOperation { key.gt(value) }
    public static func <= (key: Self, value: any Persistable) -> QueryPredicateOperation { key.le(value) }
    public static func < (key: Self, value: any Persistable) -> QueryPredicateOperation { key.lt(value) }
    public static func != (key: Self, value: (any Persistable)?) -> QueryPredicateOperation { key.ne(value) }
    public static func != (key: Self, value: any EnumPersistable) -> QueryPredicateOperation { key.ne(value) }
}

/// A field named by text.
public struct QueryField: QueryFieldNaming, Sendable {
    /// The field's name.
    public let name: String
    public var fieldName: String { name }
}

/// A generated model's coding keys (`enum CodingKeys: String, ModelKey`): each key compares
/// its field, `Post.keys.rating >= 4`.
public protocol ModelKey: CodingKey, CaseIterable, QueryFieldNaming {}

extension ModelKey {
    /// The key's text.
    public var fieldName: String { stringValue }
}
