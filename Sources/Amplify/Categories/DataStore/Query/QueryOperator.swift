/// A comparison of one field in a predicate.
public enum QueryOperator: Encodable, Sendable {
    /// `ne`.
    case notEqual(_ value: (any Persistable)?)
    /// `eq`.
    case equals(_ value: (any Persistable)?)
    /// `le`.
    case lessOrEqual(_ value: any Persistable)
    /// `lt`.
    case lessThan(_ value: any Persistable)
    /// `ge`.
    case greaterOrEqual(_ value: any Persistable)
    /// `gt`.
    case greaterThan(_ value: any Persistable)
    /// `contains`: a substring.
    case contains(_ value: String)
    /// `notContains`.
    case notContains(_ value: String)
    /// `between`, both ends included.
    case between(start: any Persistable, end: any Persistable)
    /// `beginsWith`.
    case beginsWith(_ value: String)
    /// `attributeExists`.
    case attributeExists(_ value: Bool)

    /// Whether `target` (a field's value; `nil` when missing or null) satisfies the comparison,
    /// as AppSync's filters do: `Int` and `Double` compare as numbers, enums by name, temporal
    /// values by instant; values of different kinds never match an ordering.
    public func evaluate(target: Any?) -> Bool {
        let target: Any? = PersistableValue.isNil(target) ? nil : target
        switch self {
        case .notEqual(let value): return !PersistableValue.equal(target, value)
        case .equals(let value): return PersistableValue.equal(target, value)
        case .lessOrEqual(let value): return [.orderedAscending, .orderedSame].contains(PersistableValue.compare(target, value))
        case .lessThan(let value): return PersistableValue.compare(target, value) == .orderedAscending
        case .greaterOrEqual(let value): return [.orderedDescending, .orderedSame].contains(PersistableValue.compare(target, value))
        case .greaterThan(let value): return PersistableValue.compare(target, value) == .orderedDescending
        case .contains(let value): return (target as? String)?.contains(value) ?? false
        case .notContains(let value): return (target as? String).map { !$0.contains(value) } ?? false
        case .between(let start, let end):
            return [.orderedDescending, .orderedSame].contains(PersistableValue.compare(target, start))
                && [.orderedAscending, .orderedSame].contains(PersistableValue.compare(target, end))
        case .beginsWith(let value): return (target as? String)?.hasPrefix(value) ?? false
        case .attributeExists(let exists): return (target != nil) == exists
        }
    }

    private enum CodingKeys: String, CodingKey { case type, value, start, end }

    /// `{"type": "equals", "value": …}` (`start` and `end` for `between`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .type)
        switch self {
        case .notEqual(let value), .equals(let value):
            if let value { try container.encode(value, forKey: .value) }
        case .lessOrEqual(let value), .lessThan(let value), .greaterOrEqual(let value), .greaterThan(let value):
            try container.encode(value, forKey: .value)
        case .contains(let value), .notContains(let value), .beginsWith(let value):
            try container.encode(value, forKey: .value)
        case .between(let start, let end):
            try container.encode(start, forKey: .start)
            try container.encode(end, forKey: .end)
        case .attributeExists(let value):
            try container.encode(value, forKey: .value)
        }
    }

    /// The case's name (`equals`, `lessOrEqual`, …).
    var name: String {
        switch self {
        case .notEqual: "notEqual"
        case .equals: "equals"
        case .lessOrEqual: "lessOrEqual"
        case .lessThan: "lessThan"
        case .greaterOrEqual: "greaterOrEqual"
        case .greaterThan: "greaterThan"
        case .contains: "contains"
        case .notContains: "notContains"
        case .between: "between"
        case .beginsWith: "beginsWith"
        case .attributeExists: "attributeExists"
        }
    }
}
