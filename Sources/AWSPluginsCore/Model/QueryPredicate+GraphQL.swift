import Amplify
import Foundation

/// A predicate as AppSync's filter and condition inputs take it:
/// `{"and": [{"title": {"beginsWith": "A"}}, …]}`.
public typealias GraphQLFilter = [String: any Sendable]

extension QueryPredicate {
    /// The predicate as a filter on `modelSchema`'s fields (a `belongsTo` field compares its
    /// key field, `postID`). `QueryPredicateConstant.all` is the empty filter.
    public func graphQLFilter(for modelSchema: ModelSchema?) -> GraphQLFilter {
        switch self {
        case let operation as QueryPredicateOperation:
            let column = modelSchema.map { operation.columnName($0) } ?? operation.field
            return [column: [operation.operator.graphQLOperator: operation.operator.graphQLValue] as GraphQLFilter]
        case let group as QueryPredicateGroup:
            switch group.type {
            case .and, .or:
                return [group.type.rawValue: group.predicates.map { $0.graphQLFilter(for: modelSchema) as any Sendable }]
            case .not:
                return [group.type.rawValue: group.predicates.first?.graphQLFilter(for: modelSchema) ?? [:]]
            }
        default:
            return [:]
        }
    }
}

extension QueryPredicateOperation {
    /// The field a filter compares: a `belongsTo` or `hasOne` compares its one key field.
    func columnName(_ modelSchema: ModelSchema) -> String {
        guard let field = modelSchema.field(withName: field) else { return self.field }
        switch field.association {
        case .belongsTo(_, let targetNames), .hasOne(_, _, let targetNames):
            return targetNames.count == 1 ? targetNames[0] : modelSchema.name.camelCased() + self.field.pascalCased() + "Id"
        default:
            return self.field
        }
    }
}

extension QueryOperator {
    /// The operator's name in a filter input.
    var graphQLOperator: String {
        switch self {
        case .notEqual: "ne"
        case .equals: "eq"
        case .lessOrEqual: "le"
        case .lessThan: "lt"
        case .greaterOrEqual: "ge"
        case .greaterThan: "gt"
        case .contains: "contains"
        case .between: "between"
        case .beginsWith: "beginsWith"
        case .notContains: "notContains"
        case .attributeExists: "attributeExists"
        }
    }

    /// The operator's value in a filter input: temporal values as text, `between` as a pair.
    var graphQLValue: (any Sendable)? {
        switch self {
        case .notEqual(let value), .equals(let value): value.map(Self.graphQLValue)
        case .lessOrEqual(let value), .lessThan(let value), .greaterOrEqual(let value), .greaterThan(let value): Self.graphQLValue(value)
        case .contains(let value), .notContains(let value), .beginsWith(let value): value
        case .between(let start, let end): [Self.graphQLValue(start), Self.graphQLValue(end)]
        case .attributeExists(let value): value
        }
    }

    static func graphQLValue(_ value: any Persistable) -> any Sendable {
        switch value {
        case let value as any TemporalSpec: value.iso8601String
        default: value
        }
    }
}

/// A predicate's filter as JSON text, and back (amplify-swift's `GraphQLFilterConverter`).
public enum GraphQLFilterConverter {
    /// The filter of `queryPredicate` on `modelSchema` as JSON text.
    /// - Throws: what `JSONSerialization` throws.
    public static func toJSON(
        _ queryPredicate: any QueryPredicate, modelSchema: ModelSchema, options: JSONSerialization.WritingOptions = []
    ) throws -> String {
        let value = try JSONValue(variable: queryPredicate.graphQLFilter(for: modelSchema))
        let data = try JSONSerialization.data(withJSONObject: value.foundationObject, options: options)
        return String(decoding: data, as: UTF8.self)
    }

    /// The filter in JSON text.
    /// - Throws: `DataStoreError.decodingError` when the text is not a JSON object.
    public static func fromJSON(_ value: String) throws -> GraphQLFilter {
        guard let object = try? JSONDecoder().decode(JSONValue.self, from: Data(value.utf8)), case .object(let members) = object else {
            throw DataStoreError.decodingError("A filter is not a JSON object: \(value.prefix(80))", "Pass the text toJSON wrote.")
        }
        return members.mapValues { $0.sendableObject }
    }
}

extension JSONValue {
    /// The value as Foundation's JSON objects.
    var foundationObject: Any {
        switch self {
        case .object(let members): members.mapValues(\.foundationObject)
        case .array(let elements): elements.map(\.foundationObject)
        case .string(let text): text
        case .number(let number): number
        case .boolean(let flag): flag
        case .null: NSNull()
        }
    }

    /// The value as plain Swift values.
    var sendableObject: any Sendable {
        switch self {
        case .object(let members): members.mapValues(\.sendableObject)
        case .array(let elements): elements.map(\.sendableObject)
        case .string(let text): text
        case .number(let number): number
        case .boolean(let flag): flag
        case .null: JSONValue.null
        }
    }
}
