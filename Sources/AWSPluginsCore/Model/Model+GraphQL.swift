import Amplify
import Foundation

/// A mutation's `input` object.
typealias GraphQLInput = [String: (any Sendable)?]

extension Model {
    /// The `input` of a mutation of this model: every field that is not read-only, temporal
    /// values as text, enums by name, embedded types as JSON, an associated model as its key
    /// fields (`blogId`); `nil` fields are left out of a create and sent as `null` in an update.
    func graphQLInputForMutation(_ modelSchema: ModelSchema, mutationType: GraphQLMutationType) -> GraphQLInput {
        var input: GraphQLInput = [:]
        for field in modelSchema.sortedFields where !field.isReadOnly {
            guard let stored = self[field.name] else { continue }
            guard let value = Self.unwrapped(stored) else {
                guard mutationType != .create else { continue }
                switch field.type {
                case .model:
                    for name in keyFieldNames(of: field) where input[name] == nil { input.updateValue(nil, forKey: name) }
                case .collection:
                    continue
                default:
                    input.updateValue(nil, forKey: field.name)
                }
                continue
            }
            switch field.type {
            case .collection:
                continue
            case .date, .dateTime, .time:
                input[field.name] = (value as? any TemporalSpec)?.iso8601String
            case .enum:
                input[field.name] = (value as? any EnumPersistable)?.rawValue
            case .model(let associatedModelName):
                let names = keyFieldNames(of: field)
                var values = Self.keyValues(of: value, schema: ModelRegistry.modelSchema(from: associatedModelName))
                if values.count != names.count { values = Array(repeating: nil, count: names.count) }
                for (name, keyValue) in zip(names, values) where keyValue != nil || mutationType == .update {
                    input.updateValue(keyValue, forKey: name)
                }
            case .embedded, .embeddedCollection:
                input[field.name] = (value as? any Encodable).flatMap(Self.json)
            case .string, .int, .double, .timestamp, .bool:
                input[field.name] = Self.scalar(value)
            }
        }
        return input
    }

    /// The text of a key field's value (what a delete's `input` carries).
    func graphQLInputForPrimaryKey(modelFieldName: ModelFieldName, modelSchema: ModelSchema) -> String? {
        guard let field = modelSchema.field(withName: modelFieldName), let stored = self[field.name], let value = Self.unwrapped(stored) else {
            return nil
        }
        switch field.type {
        case .date, .dateTime, .time: return (value as? any TemporalSpec)?.iso8601String
        case .enum: return (value as? any EnumPersistable)?.rawValue
        case .string, .double, .int: return String(describing: value)
        default: return nil
        }
    }

    /// The fields of this model that hold an association's key: its target names, or
    /// `<model><Field>Id`.
    private func keyFieldNames(of field: ModelField) -> [String] {
        switch field.association {
        case .belongsTo(_, let targetNames) where !targetNames.isEmpty, .hasOne(_, _, let targetNames) where !targetNames.isEmpty:
            targetNames
        default:
            [modelName.camelCased() + field.name.pascalCased() + "Id"]
        }
    }

    /// The key values of an associated model, a lazy reference or a JSON object.
    private static func keyValues(of value: Any, schema: ModelSchema?) -> [(any Persistable)?] {
        switch value {
        case let model as any Model:
            return model.identifier(schema: schema ?? model.schema).values
        case let reference as any _LazyReferenceValue:
            switch reference._state {
            case .notLoaded(let identifiers): return identifiers?.map(\.value) ?? []
            case .loaded(let model): return model.map { $0.identifier(schema: schema ?? $0.schema).values } ?? []
            }
        case let object as [String: JSONValue]:
            return (schema?.primaryKey.fields ?? []).compactMap { field in
                if case .string(let key) = object[field.name] { key } else { nil }
            }
        default:
            return []
        }
    }

    /// A scalar field's value as the input carries it.
    private static func scalar(_ value: Any) -> (any Sendable)? {
        switch value {
        case let value as String: value
        case let value as Int: value
        case let value as Double: value
        case let value as Bool: value
        case let value as Int64: Int(value)
        case let value as any EnumPersistable: value.rawValue
        default: String(describing: value)
        }
    }

    /// The value inside any number of optionals, or `nil` when one is empty.
    static func unwrapped(_ value: Any?) -> Any? {
        guard let value else { return nil }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return unwrapped(mirror.children.first?.value)
    }

    /// An embedded value as JSON, dates in AppSync's forms.
    private static func json(_ value: any Encodable) -> JSONValue? {
        let encoder = JSONEncoder(dateEncodingStrategy: ModelDateFormatting.encodingStrategy)
        guard let data = try? encoder.encode(value) else { return nil }
        return try? JSONDecoder().decode(JSONValue.self, from: data)
    }
}
