import AWSPluginsCore
import Amplify
import AmplifyCodegen
import Foundation

/// The models of the configuration's `data.model_introspection`, as schemas the document builder
/// takes, for the `amplify data` commands: no Swift types, only names.
struct DataSchema {
    let introspection: ModelIntrospection

    /// The introspection in the configuration file `global` names (else `$AMPLIFY_CONFIG`, else
    /// `amplify_outputs.json` in the working directory).
    /// - Throws: ``UsageError`` when there is no file or no introspection in it.
    init(_ global: GlobalOptions) throws {
        let path = global.configPath ?? ProcessInfo.processInfo.environment["AMPLIFY_CONFIG"] ?? "amplify_outputs.json"
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("Cannot read '\(path)': the data commands need a Gen 2 amplify_outputs.json with data.model_introspection (--config).")
        }
        do {
            introspection = try ModelIntrospection(json: OrderedJSON.parse(Array(data)))
        } catch let error as CodegenError {
            throw UsageError(error.description)
        }
    }

    /// The model named `name`.
    /// - Throws: ``UsageError`` listing the models there are.
    func model(_ name: String) throws -> ModelIntrospection.Model {
        guard let model = introspection.models.first(where: { $0.name == name }) else {
            throw UsageError("No model named '\(name)'; the introspection has \(introspection.models.map(\.name).joined(separator: ", ")).")
        }
        return model
    }

    /// The schema of `model`: its scalars, enums (as text), non-model types (nested), and
    /// associations; a `belongsTo`'s key fields stand behind it, as in generated models.
    func schema(_ model: ModelIntrospection.Model) -> ModelSchema {
        let hidden = Set(model.fields.filter { $0.connection == "BELONGS_TO" }.flatMap(\.targetNames)).subtracting(model.primaryKey)
        var fields: ModelFields = [:]
        for field in model.fields where !hidden.contains(field.name) {
            fields[field.name] = modelField(field)
        }
        return ModelSchema(
            name: model.name, listPluralName: model.pluralName, syncPluralName: model.pluralName, fields: fields,
            primaryKeyFieldKeys: model.primaryKey)
    }

    private func modelField(_ field: ModelIntrospection.Field) -> ModelField {
        let type: ModelFieldType
        var association: ModelAssociation?
        switch field.kind {
        case .scalar(let scalar):
            type = field.isArray ? .embeddedCollection(of: String.self, schema: nil) : Self.scalarTypes[scalar] ?? .string
        case .enumeration:
            type = .string
        case .nonModel(let name):
            let nested = introspection.nonModels.first { $0.name == name }.map { nonModel in
                ModelSchema(
                    name: name, fields: Dictionary(nonModel.fields.map { ($0.name, modelField($0)) }, uniquingKeysWith: { first, _ in first }))
            }
            type = field.isArray ? .embeddedCollection(of: JSONValue.self, schema: nested) : .embedded(type: JSONValue.self, schema: nested)
        case .model(let name):
            type = field.connection == "HAS_MANY" ? .collection(of: name) : .model(name: name)
            switch field.connection {
            case "BELONGS_TO": association = .belongsTo(associatedFieldName: nil, targetNames: field.targetNames)
            case "HAS_ONE": association = .hasOne(associatedFieldName: nil, targetNames: field.targetNames)
            case "HAS_MANY": association = .hasMany(associatedFieldName: field.associatedWith.first, associatedFieldNames: field.associatedWith)
            default: break
            }
        }
        return ModelField(
            name: field.name, type: type, isRequired: field.isRequired, isReadOnly: field.isReadOnly, isArray: field.isArray, association: association
        )
    }

    private static let scalarTypes: [String: ModelFieldType] = [
        "Int": .int, "Float": .double, "Boolean": .bool, "AWSDate": .date, "AWSTime": .time, "AWSDateTime": .dateTime,
        "AWSTimestamp": .timestamp,
    ]
}

/// `--where`'s small predicate language: comparisons of a field with a value, joined by `and`
/// and `or` (`and` binds tighter), in parentheses, negated with `not`:
/// `status == PUBLISHED and (rating >= 4 or title beginsWith "A")`. Operators: `==`, `!=`, `<`,
/// `<=`, `>`, `>=`, `contains`, `notContains`, `beginsWith`, `between A B`, `exists`,
/// `missing`. Values: numbers, `true`, `false`, `null`, quoted text, or a bare word as text.
struct DataPredicate {
    /// `text` as a predicate on `schema`'s fields.
    /// - Throws: ``UsageError`` naming the field the model lacks, or what could not be read.
    static func parse(_ text: String, schema: ModelSchema) throws -> any QueryPredicate {
        var parser = DataPredicate(tokens: try tokens(text), schema: schema)
        let predicate = try parser.or()
        guard parser.position == parser.tokens.count else { throw UsageError("--where: unexpected '\(parser.tokens[parser.position])'.") }
        return predicate
    }

    let tokens: [String]
    let schema: ModelSchema
    var position = 0

    private mutating func next() -> String? {
        guard position < tokens.count else { return nil }
        defer { position += 1 }
        return tokens[position]
    }

    private mutating func or() throws -> any QueryPredicate {
        var left = try and()
        while position < tokens.count, tokens[position].lowercased() == "or" {
            position += 1
            left = QueryPredicateGroup(type: .or, predicates: [left, try and()])
        }
        return left
    }

    private mutating func and() throws -> any QueryPredicate {
        var left = try unary()
        while position < tokens.count, tokens[position].lowercased() == "and" {
            position += 1
            left = QueryPredicateGroup(type: .and, predicates: [left, try unary()])
        }
        return left
    }

    private mutating func unary() throws -> any QueryPredicate {
        guard let token = next() else { throw UsageError("--where ends where a comparison was expected.") }
        if token.lowercased() == "not" { return QueryPredicateGroup(type: .not, predicates: [try unary()]) }
        if token == "(" {
            let inner = try or()
            guard next() == ")" else { throw UsageError("--where: a '(' is not closed.") }
            return inner
        }
        let name = Self.unquoted(token)
        guard schema.field(withName: name) != nil else {
            throw UsageError(
                "--where: model \(schema.name) has no field '\(name)'; its fields are \(schema.sortedFields.map(\.name).joined(separator: ", ")).")
        }
        let field = field(name)
        guard let op = next() else { throw UsageError("--where: no operator after '\(name)'.") }
        switch op {
        case "exists": return field.attributeExists(true)
        case "missing": return field.attributeExists(false)
        case "between":
            let start = try value()
            return field.between(start: start ?? "", end: try value() ?? "")
        default:
            let operand = try value()
            switch op {
            case "==": return field.eq(operand)
            case "!=": return field.ne(operand)
            case "<", "<=", ">", ">=":
                guard let operand else { throw UsageError("--where: \(name) \(op) needs a value, not null.") }
                return op == "<" ? field.lt(operand) : op == "<=" ? field.le(operand) : op == ">" ? field.gt(operand) : field.ge(operand)
            case "contains", "notContains", "beginsWith":
                guard let text = operand as? String else { throw UsageError("--where: \(op) takes text.") }
                return op == "contains" ? field.contains(text) : op == "notContains" ? field.notContains(text) : field.beginsWith(text)
            default:
                throw UsageError(
                    "--where: unknown operator '\(op)' (==, !=, <, <=, >, >=, contains, notContains, beginsWith, between, exists, missing).")
            }
        }
    }

    private mutating func value() throws -> (any Persistable)? {
        guard let token = next() else { throw UsageError("--where ends where a value was expected.") }
        if token.hasPrefix("\"") { return Self.unquoted(token) }
        switch token {
        case "null": return nil
        case "true": return true
        case "false": return false
        default: return Int(token) ?? Double(token).map { $0 as any Persistable } ?? token
        }
    }

    private static func unquoted(_ token: String) -> String {
        guard token.count >= 2, token.hasPrefix("\""), token.hasSuffix("\"") else { return token }
        return String(token.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
    }

    private static func tokens(_ text: String) throws -> [String] {
        var tokens: [String] = []
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character.isWhitespace {
                index = text.index(after: index)
            } else if character == "(" || character == ")" {
                tokens.append(String(character))
                index = text.index(after: index)
            } else if character == "\"" {
                var end = text.index(after: index)
                while end < text.endIndex, text[end] != "\"" {
                    end = text.index(end, offsetBy: text[end] == "\\" ? 2 : 1, limitedBy: text.endIndex) ?? text.endIndex
                }
                guard end < text.endIndex else { throw UsageError("--where: a quote is not closed.") }
                tokens.append(String(text[index...end]))
                index = text.index(after: end)
            } else {
                var end = index
                while end < text.endIndex, !text[end].isWhitespace, text[end] != "(", text[end] != ")" { end = text.index(after: end) }
                tokens.append(String(text[index..<end]))
                index = end
            }
        }
        return tokens
    }
}
