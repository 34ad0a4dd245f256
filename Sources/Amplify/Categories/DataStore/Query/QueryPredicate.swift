/// Something that decides whether a model matches.
public protocol Evaluable {
    /// Whether `target` matches.
    func evaluate(target: any Model) -> Bool
}

/// A condition on a model's fields: one comparison (``QueryPredicateOperation``), a group
/// joined by `and`/`or`/`not` (``QueryPredicateGroup``), or ``QueryPredicateConstant/all``.
/// Built from a model's keys: `Post.keys.rating >= 4 && Post.keys.title.beginsWith("A")`.
public protocol QueryPredicate: Evaluable, Encodable {}

/// How a group joins its predicates.
public enum QueryPredicateGroupType: String, Encodable, Sendable {
    /// All of them.
    case and
    /// Any of them.
    case or
    /// Not the one.
    case not
}

/// The negation of `predicate`.
public func not(_ predicate: some QueryPredicate) -> QueryPredicateGroup {
    QueryPredicateGroup(type: .not, predicates: [predicate])
}

/// The predicate every model matches.
public enum QueryPredicateConstant: QueryPredicate, Encodable, Sendable {
    /// Every model.
    case all

    public func evaluate(target: any Model) -> Bool { true }
}

/// Predicates joined by `and`, `or` or `not`.
public final class QueryPredicateGroup: QueryPredicate, Encodable {
    /// How they are joined.
    public internal(set) var type: QueryPredicateGroupType
    /// The predicates.
    public internal(set) var predicates: [any QueryPredicate]

    /// A group.
    public init(type: QueryPredicateGroupType = .and, predicates: [any QueryPredicate] = []) {
        self.type = type
        self.predicates = predicates
    }

    /// This group and `predicate` (added to this group when it is an `and`).
    public func and(_ predicate: any QueryPredicate) -> QueryPredicateGroup {
        if type == .and {
            predicates.append(predicate)
            return self
        }
        return QueryPredicateGroup(type: .and, predicates: [self, predicate])
    }

    /// This group or `predicate` (added to this group when it is an `or`).
    public func or(_ predicate: any QueryPredicate) -> QueryPredicateGroup {
        if type == .or {
            predicates.append(predicate)
            return self
        }
        return QueryPredicateGroup(type: .or, predicates: [self, predicate])
    }

    /// `lhs.and(rhs)`.
    public static func && (lhs: QueryPredicateGroup, rhs: any QueryPredicate) -> QueryPredicateGroup { lhs.and(rhs) }
    /// `lhs.or(rhs)`.
    public static func || (lhs: QueryPredicateGroup, rhs: any QueryPredicate) -> QueryPredicateGroup { lhs.or(rhs) }
    /// `not(rhs)`.
    public static prefix func ! (rhs: QueryPredicateGroup) -> QueryPredicateGroup { not(rhs) }

    public func evaluate(target: any Model) -> Bool {
        switch type {
        case .and: predicates.allSatisfy { $0.evaluate(target: target) }
        case .or: predicates.contains { $0.evaluate(target: target) }
        case .not: !(predicates.first?.evaluate(target: target) ?? true)
        }
    }

    private enum CodingKeys: String, CodingKey { case type, predicates }

    /// `{"type": "and", "predicates": […]}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type.rawValue, forKey: .type)
        var list = container.nestedUnkeyedContainer(forKey: .predicates)
        for predicate in predicates { try predicate.encode(to: list.superEncoder()) }
    }
}

/// One comparison of one field.
public final class QueryPredicateOperation: QueryPredicate, Encodable, Sendable {
    /// The field's name.
    public let field: String
    /// The comparison.
    public let `operator`: QueryOperator

    /// A comparison of `field`.
    public init(field: String, operator: QueryOperator) {
        self.field = field
        self.operator = `operator`
    }

    /// This and `predicate`.
    public func and(_ predicate: any QueryPredicate) -> QueryPredicateGroup {
        QueryPredicateGroup(type: .and, predicates: [self, predicate])
    }

    /// This or `predicate`.
    public func or(_ predicate: any QueryPredicate) -> QueryPredicateGroup {
        QueryPredicateGroup(type: .or, predicates: [self, predicate])
    }

    /// `lhs.and(rhs)`.
    public static func && (lhs: QueryPredicateOperation, rhs: any QueryPredicate) -> QueryPredicateGroup { lhs.and(rhs) }
    /// `lhs.or(rhs)`.
    public static func || (lhs: QueryPredicateOperation, rhs: any QueryPredicate) -> QueryPredicateGroup { lhs.or(rhs) }
    /// `not(rhs)`.
    public static prefix func ! (rhs: QueryPredicateOperation) -> QueryPredicateGroup { not(rhs) }

    public func evaluate(target: any Model) -> Bool {
        self.operator.evaluate(target: target[field].flatMap { $0 })
    }

    private enum CodingKeys: String, CodingKey { case field, `operator` }

    /// `{"field": …, "operator": {…}}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(field, forKey: .field)
        try container.encode(self.operator, forKey: .operator)
    }
}
