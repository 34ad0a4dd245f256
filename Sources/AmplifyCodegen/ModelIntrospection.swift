/// A Gen 2 `model_introspection` (`{version, models, enums, nonModels}`), its fields in the order
/// the file lists them.
package struct ModelIntrospection {
    package struct Field {
        package enum Kind: Equatable {
            case scalar(String)
            case enumeration(String)
            case nonModel(String)
            case model(String)
        }

        package let name: String
        package let kind: Kind
        package let isArray: Bool
        package let isRequired: Bool
        package let isArrayNullable: Bool
        package let isReadOnly: Bool
        /// `BELONGS_TO`, `HAS_ONE`, `HAS_MANY`, or `nil`.
        package let connection: String?
        package let targetNames: [String]
        package let associatedWith: [String]
    }

    package struct Model {
        package let name: String
        package let pluralName: String
        package let fields: [Field]
        /// Each `key` attribute: its name (`nil` for the primary key) and fields.
        package let keys: [(name: String?, fields: [String])]
        package let authRules: [OrderedJSON]
        package let primaryKey: [String]
        package let isCustomPrimaryKey: Bool
    }

    package let models: [Model]
    package let enums: [(name: String, values: [String])]
    package let nonModels: [(name: String, fields: [Field])]

    /// The introspection in `json`: an `amplify_outputs.json` (its `data.model_introspection`)
    /// or the introspection itself.
    /// - Throws: ``CodegenError`` saying what is missing or malformed, and where.
    package init(json: OrderedJSON) throws {
        let root = json["data"]?["model_introspection"] ?? json
        guard let models = root["models"]?.members else {
            throw CodegenError(
                "No model introspection: the file has neither data.model_introspection (amplify_outputs.json) nor a top-level `models` object. Generate the outputs with a data resource (`npx ampx generate outputs`)."
            )
        }
        self.models = try models.map { try Self.model($0.0, $0.1) }
        enums = try (root["enums"]?.members ?? []).map { name, value in
            guard let values = value["values"]?.array?.compactMap(\.string) else { throw CodegenError("Enum \(name) has no `values` list.") }
            return (value["name"]?.string ?? name, values)
        }
        nonModels = try (root["nonModels"]?.members ?? []).map { name, value in
            (value["name"]?.string ?? name, try Self.fields(of: value, in: name))
        }
    }

    private static func model(_ key: String, _ value: OrderedJSON) throws -> Model {
        let name = value["name"]?.string ?? key
        let fields = try fields(of: value, in: name)
        var keys: [(String?, [String])] = []
        var rules: [OrderedJSON] = []
        for attribute in value["attributes"]?.array ?? [] {
            switch attribute["type"]?.string {
            case "key":
                keys.append((attribute["properties"]?["name"]?.string, attribute["properties"]?["fields"]?.array?.compactMap(\.string) ?? []))
            case "auth":
                rules += attribute["properties"]?["rules"]?.array ?? []
            default:
                break
            }
        }
        let info = value["primaryKeyInfo"]
        let primary: [String]
        if let field = info?["primaryKeyFieldName"]?.string {
            primary = [field] + (info?["sortKeyFieldNames"]?.array?.compactMap(\.string) ?? [])
        } else {
            primary = keys.first { $0.0 == nil }?.1 ?? (fields.contains { $0.name == "id" } ? ["id"] : [])
        }
        for field in primary where !fields.contains(where: { $0.name == field }) {
            throw CodegenError("Model \(name): its primary key names a field it does not have, \(field).")
        }
        return Model(
            name: name, pluralName: value["pluralName"]?.string ?? name + "s", fields: fields, keys: keys, authRules: rules,
            primaryKey: primary, isCustomPrimaryKey: info?["isCustomPrimaryKey"]?.bool ?? false)
    }

    private static func fields(of value: OrderedJSON, in owner: String) throws -> [Field] {
        guard let members = value["fields"]?.members else { throw CodegenError("\(owner) has no `fields` object.") }
        return try members.map { key, field in
            let name = field["name"]?.string ?? key
            let kind: Field.Kind
            switch field["type"] {
            case .string(let scalar)?: kind = .scalar(scalar)
            case let type? where type["enum"]?.string != nil: kind = .enumeration(type["enum"]?.string ?? "")
            case let type? where type["nonModel"]?.string != nil: kind = .nonModel(type["nonModel"]?.string ?? "")
            case let type? where type["model"]?.string != nil: kind = .model(type["model"]?.string ?? "")
            default: throw CodegenError("\(owner).\(name) has a `type` that is neither a scalar name nor {enum|nonModel|model: name}.")
            }
            let association = field["association"]
            return Field(
                name: name, kind: kind, isArray: field["isArray"]?.bool ?? false, isRequired: field["isRequired"]?.bool ?? false,
                isArrayNullable: field["isArrayNullable"]?.bool ?? true, isReadOnly: field["isReadOnly"]?.bool ?? false,
                connection: association?["connectionType"]?.string,
                targetNames: association?["targetNames"]?.array?.compactMap(\.string) ?? [],
                associatedWith: association?["associatedWith"]?.array?.compactMap(\.string) ?? [])
        }
    }
}
