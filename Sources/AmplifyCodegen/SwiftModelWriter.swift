/// Writes the Swift files the Amplify CLI generates for a model introspection (Gen 2, lazy
/// loading): `X.swift` and `X+Schema.swift` per model, one file per enum, `X.swift` and
/// `X+Schema.swift` per non-model type, and `AmplifyModels.swift`.
struct SwiftModelWriter {
    let introspection: ModelIntrospection
    /// The schema's version in `AmplifyModels.swift`: a digest of the introspection's text.
    let version: String

    /// Every file, by name.
    func files() -> [(name: String, text: String)] {
        var files: [(String, String)] = []
        for model in introspection.models {
            files.append(("\(model.name).swift", modelFile(model)))
            files.append(("\(model.name)+Schema.swift", schemaFile(model)))
        }
        for (name, values) in introspection.enums { files.append(("\(name).swift", enumFile(name, values))) }
        for (name, fields) in introspection.nonModels {
            files.append(("\(name).swift", nonModelFile(name, fields)))
            files.append(("\(name)+Schema.swift", nonModelSchemaFile(name, fields)))
        }
        files.append(("AmplifyModels.swift", registrationFile()))
        return files
    }

    private static let header = "// swiftlint:disable all\nimport Amplify\nimport Foundation\n\n"

    // MARK: Models

    /// The fields a model struct has: all but the key fields of its `belongsTo`s (which the
    /// association stands for).
    private func visibleFields(_ model: ModelIntrospection.Model) -> [ModelIntrospection.Field] {
        let hidden = Set(model.fields.filter { $0.connection == "BELONGS_TO" }.flatMap(\.targetNames))
        return model.fields.filter { !hidden.contains($0.name) || model.primaryKey.contains($0.name) }
    }

    private func isLazy(_ field: ModelIntrospection.Field) -> Bool {
        field.connection == "BELONGS_TO" || (field.connection == "HAS_ONE" && !field.isArray)
    }

    private func modelFile(_ model: ModelIntrospection.Model) -> String {
        let fields = visibleFields(model)
        var text = Self.header + "public struct \(model.name): Model {\n"
        for field in fields {
            if isLazy(field) {
                let type = swiftType(field, optionalWrapped: false)
                text += "  internal var _\(field.name): LazyReference<\(type)>\n"
                text += "  public var \(field.name): \(type)\(field.isRequired ? "" : "?")   {\n      get async throws { \n"
                text += "        try await _\(field.name).\(field.isRequired ? "require" : "get")()\n      } \n    }\n"
            } else {
                let keyword = model.primaryKey.contains(field.name) ? "let" : "var"
                text += "  public \(keyword) \(field.name): \(swiftType(field))\n"
            }
        }
        text += "  \n"
        let writable = fields.filter { !$0.isReadOnly }
        let readOnly = fields.filter(\.isReadOnly)
        text += "  public init(" + writable.map { parameter($0, model) }.joined(separator: ",\n      ") + ") {\n"
        text += "    self.init(" + (writable.map { "\($0.name): \($0.name)" } + readOnly.map { "\($0.name): nil" }).joined(separator: ",\n      ")
        text += ")\n  }\n"
        text += "  internal init(" + fields.map { parameter($0, model) }.joined(separator: ",\n      ") + ") {\n"
        for field in fields {
            text += isLazy(field) ? "      self._\(field.name) = LazyReference(\(field.name))\n" : "      self.\(field.name) = \(field.name)\n"
        }
        text += "  }\n"
        let lazy = fields.filter(isLazy)
        if !lazy.isEmpty {
            for field in lazy {
                let type = swiftType(field, optionalWrapped: false)
                text += "  public mutating func set\(pascal(field.name))(_ \(field.name): \(type)\(field.isRequired ? "" : "? = nil")) {\n"
                text += "    self._\(field.name) = LazyReference(\(field.name))\n  }\n"
            }
            text += "  public init(from decoder: Decoder) throws {\n      let values = try decoder.container(keyedBy: CodingKeys.self)\n"
            for field in fields { text += "      \(decodeLine(field))\n" }
            text += "  }\n  public func encode(to encoder: Encoder) throws {\n      var container = encoder.container(keyedBy: CodingKeys.self)\n"
            for field in fields {
                text += "      try container.encode(\(isLazy(field) ? "_" : "")\(field.name), forKey: .\(field.name))\n"
            }
            text += "  }\n"
        }
        return text + "}\n"
    }

    private func parameter(_ field: ModelIntrospection.Field, _ model: ModelIntrospection.Model) -> String {
        let type = isLazy(field) ? swiftType(field, optionalWrapped: false) + (field.isRequired ? "" : "?") : swiftType(field)
        var text = "\(field.name): \(type)"
        if field.name == "id", model.primaryKey == ["id"], !model.isCustomPrimaryKey, field.kind == .scalar("ID") {
            text += " = UUID().uuidString"
        } else if field.connection == "HAS_MANY" {
            text += " = []"
        } else if !field.isRequired || (isLazy(field) && !field.isRequired) {
            text += " = nil"
        }
        return text
    }

    private func decodeLine(_ field: ModelIntrospection.Field) -> String {
        if isLazy(field) {
            let type = swiftType(field, optionalWrapped: false)
            return
                "_\(field.name) = try values.decodeIfPresent(LazyReference<\(type)>.self, forKey: .\(field.name)) ?? LazyReference(identifiers: nil)"
        }
        if field.connection == "HAS_MANY" {
            return "\(field.name) = try values.decodeIfPresent(\(swiftType(field)).self, forKey: .\(field.name)) ?? .init()"
        }
        if field.isRequired && !(field.isArray && field.isArrayNullable) {
            return "\(field.name) = try values.decode(\(swiftType(field)).self, forKey: .\(field.name))"
        }
        // An optional list decodes as the list itself, an optional value as its Optional.
        let type = field.isArray ? swiftType(field, optionalWrapped: false) : swiftType(field)
        return "\(field.name) = try? values.decode(\(type).self, forKey: .\(field.name))"
    }

    /// The Swift type of a field: `String`, `Temporal.DateTime?`, `[String?]?`, `List<Comment>?`.
    private func swiftType(_ field: ModelIntrospection.Field, optionalWrapped: Bool = true) -> String {
        let base: String
        switch field.kind {
        case .scalar(let name): base = Self.scalarTypes[name] ?? "String"
        case .enumeration(let name), .nonModel(let name), .model(let name): base = name
        }
        if field.connection == "HAS_MANY" { return "List<\(base)>" + (optionalWrapped ? "?" : "") }
        if field.isArray {
            let element = field.isRequired ? base : base + "?"
            return "[\(element)]" + (optionalWrapped && field.isArrayNullable ? "?" : "")
        }
        return base + (optionalWrapped && !field.isRequired ? "?" : "")
    }

    private static let scalarTypes: [String: String] = [
        "ID": "String", "String": "String", "Int": "Int", "Float": "Double", "Boolean": "Bool", "AWSDate": "Temporal.Date",
        "AWSTime": "Temporal.Time", "AWSDateTime": "Temporal.DateTime", "AWSTimestamp": "Int", "AWSEmail": "String", "AWSJSON": "String",
        "AWSURL": "String", "AWSPhone": "String", "AWSIPAddress": "String",
    ]

    private static let schemaTypes: [String: String] = [
        "ID": ".string", "String": ".string", "Int": ".int", "Float": ".double", "Boolean": ".bool", "AWSDate": ".date", "AWSTime": ".time",
        "AWSDateTime": ".dateTime", "AWSTimestamp": ".int", "AWSEmail": ".string", "AWSJSON": ".string", "AWSURL": ".string",
        "AWSPhone": ".string", "AWSIPAddress": ".string",
    ]

    private static let pathFunctions: [String: (String, String)] = [
        "ID": ("String", "string"), "String": ("String", "string"), "Int": ("Int", "int"), "Float": ("Double", "double"),
        "Boolean": ("Bool", "bool"), "AWSDate": ("Temporal.Date", "date"), "AWSTime": ("Temporal.Time", "time"),
        "AWSDateTime": ("Temporal.DateTime", "datetime"), "AWSTimestamp": ("Int", "int"), "AWSEmail": ("String", "string"),
        "AWSJSON": ("String", "string"), "AWSURL": ("String", "string"), "AWSPhone": ("String", "string"), "AWSIPAddress": ("String", "string"),
    ]

    // MARK: Schemas

    private func schemaFile(_ model: ModelIntrospection.Model) -> String {
        let fields = visibleFields(model)
        let keys = camel(model.name)
        var text = Self.header + "extension \(model.name) {\n" + codingKeys(fields.map(\.name))
        text += "  public static let schema = defineSchema { model in\n    let \(keys) = \(model.name).keys\n    \n"
        if !model.authRules.isEmpty {
            text += "    model.authRules = [\n      " + model.authRules.map(rule).joined(separator: ",\n      ") + "\n    ]\n    \n"
        }
        text += "    model.listPluralName = \"\(model.pluralName)\"\n    model.syncPluralName = \"\(model.pluralName)\"\n    \n"
        var attributes: [String] = []
        for key in model.keys {
            if let name = key.name {
                attributes.append(".index(fields: \(quoted(key.fields)), name: \"\(name)\")")
            } else if model.isCustomPrimaryKey {
                attributes.append(".index(fields: \(quoted(key.fields)), name: nil)")
            }
        }
        attributes.append(".primaryKey(fields: [" + model.primaryKey.map { "\(keys).\($0)" }.joined(separator: ", ") + "])")
        text += "    model.attributes(\n      " + attributes.joined(separator: ",\n      ") + "\n    )\n    \n"
        text += "    model.fields(\n      " + fields.map { fieldDefinition($0, keys, model) }.joined(separator: ",\n      ") + "\n    )\n    }\n"
        text += "    public class Path: ModelPath<\(model.name)> { }\n    \n    public static var rootPath: PropertyContainerPath? { Path() }\n}\n\n"
        if model.isCustomPrimaryKey {
            text += "extension \(model.name): ModelIdentifiable {\n  public typealias IdentifierFormat = ModelIdentifierFormat.Custom\n"
            text += "  public typealias IdentifierProtocol = ModelIdentifier<Self, ModelIdentifierFormat.Custom>\n}\n\n"
            let keyFields = model.primaryKey.compactMap { name in fields.first { $0.name == name } }
            text += "extension \(model.name).IdentifierProtocol {\n  public static func identifier("
            text += keyFields.map { "\($0.name): \(swiftType($0, optionalWrapped: false))" }.joined(separator: ",\n      ") + ") -> Self {\n"
            text += "    .make(fields:[" + keyFields.map { "(name: \"\($0.name)\", value: \($0.name))" }.joined(separator: ", ") + "])\n  }\n}\n"
        } else {
            text += "extension \(model.name): ModelIdentifiable {\n  public typealias IdentifierFormat = ModelIdentifierFormat.Default\n"
            text += "  public typealias IdentifierProtocol = DefaultModelIdentifier<Self>\n}\n"
        }
        text += "extension ModelPath where ModelType == \(model.name) {\n"
        for field in fields {
            switch field.kind {
            case .scalar(let scalar):
                let (type, function) = Self.pathFunctions[scalar] ?? ("String", "string")
                text += "  public var \(field.name): FieldPath<\(type)>   {\n      \(function)(\"\(field.name)\") \n    }\n"
            case .model(let name):
                let collection = field.connection == "HAS_MANY" ? "isCollection: true, " : ""
                text +=
                    "  public var \(field.name): ModelPath<\(name)>   {\n      \(name).Path(name: \"\(field.name)\", \(collection)parent: self) \n    }\n"
            case .enumeration, .nonModel:
                continue
            }
        }
        return text + "}\n"
    }

    private func codingKeys(_ names: [String]) -> String {
        "  // MARK: - CodingKeys \n   public enum CodingKeys: String, ModelKey {\n" + names.map { "    case \($0)\n" }.joined()
            + "  }\n  \n  public static let keys = CodingKeys.self\n  //  MARK: - ModelSchema \n  \n"
    }

    private func fieldDefinition(_ field: ModelIntrospection.Field, _ keys: String, _ model: ModelIntrospection.Model) -> String {
        let nullability = field.isRequired ? ".required" : ".optional"
        switch (field.connection, field.kind) {
        case ("BELONGS_TO", .model(let name)):
            return ".belongsTo(\(keys).\(field.name), is: \(nullability), ofType: \(name).self, targetNames: \(quoted(field.targetNames)))"
        case ("HAS_ONE", .model(let name)):
            let associated = associatedKeys(field, name)
            return
                ".hasOne(\(keys).\(field.name), is: \(nullability), ofType: \(name).self, associatedFields: \(associated), targetNames: \(quoted(field.targetNames)))"
        case ("HAS_MANY", .model(let name)):
            return ".hasMany(\(keys).\(field.name), is: \(nullability), ofType: \(name).self, associatedFields: \(associatedKeys(field, name)))"
        default:
            let readOnly = field.isReadOnly ? "isReadOnly: true, " : ""
            return ".field(\(keys).\(field.name), is: \(nullability), \(readOnly)ofType: \(schemaType(field)))"
        }
    }

    /// The other model's keys a `hasMany`/`hasOne` pairs with: its `belongsTo` field holding
    /// each associated key field, else that field.
    private func associatedKeys(_ field: ModelIntrospection.Field, _ other: String) -> String {
        let otherModel = introspection.models.first { $0.name == other }
        let names = field.associatedWith.map { key in
            otherModel?.fields.first { $0.connection == "BELONGS_TO" && $0.targetNames.contains(key) }?.name ?? key
        }
        var unique: [String] = []
        for name in names where !unique.contains(name) { unique.append(name) }
        return "[" + unique.map { "\(other).keys.\($0)" }.joined(separator: ", ") + "]"
    }

    private func schemaType(_ field: ModelIntrospection.Field) -> String {
        switch field.kind {
        case .scalar(let name):
            let type = Self.schemaTypes[name] ?? ".string"
            return field.isArray ? ".embeddedCollection(of: \(Self.scalarTypes[name] ?? "String").self)" : type
        case .enumeration(let name): return field.isArray ? ".embeddedCollection(of: \(name).self)" : ".enum(type: \(name).self)"
        case .nonModel(let name): return field.isArray ? ".embeddedCollection(of: \(name).self)" : ".embedded(type: \(name).self)"
        case .model(let name): return field.isArray ? ".collection(of: \(name).self)" : ".model(\(name).self)"
        }
    }

    private func rule(_ json: OrderedJSON) -> String {
        var parts = ["allow: .\(json["allow"]?.string ?? "public")"]
        if let owner = json["ownerField"]?.string { parts.append("ownerField: \"\(owner)\"") }
        if let claim = json["identityClaim"]?.string { parts.append("identityClaim: \"\(claim)\"") }
        if let claim = json["groupClaim"]?.string { parts.append("groupClaim: \"\(claim)\"") }
        if let groups = json["groups"]?.array?.compactMap(\.string) { parts.append("groups: \(quoted(groups))") }
        if let field = json["groupsField"]?.string { parts.append("groupsField: \"\(field)\"") }
        if let provider = json["provider"]?.string { parts.append("provider: .\(provider)") }
        if let operations = json["operations"]?.array?.compactMap(\.string) {
            parts.append("operations: [" + operations.map { ".\($0)" }.joined(separator: ", ") + "]")
        }
        return "rule(" + parts.joined(separator: ", ") + ")"
    }

    // MARK: Enums, non-models, registration

    private func enumFile(_ name: String, _ values: [String]) -> String {
        var text = Self.header + "public enum \(name): String, EnumPersistable {\n"
        for value in values { text += "  case \(caseName(value)) = \"\(value)\"\n" }
        return text + "}\n"
    }

    private func nonModelFile(_ name: String, _ fields: [ModelIntrospection.Field]) -> String {
        Self.header + "public struct \(name): Embeddable {\n" + fields.map { "  var \($0.name): \(swiftType($0))\n" }.joined() + "}\n"
    }

    private func nonModelSchemaFile(_ name: String, _ fields: [ModelIntrospection.Field]) -> String {
        let keys = camel(name)
        var text = Self.header + "extension \(name) {\n" + codingKeys(fields.map(\.name))
        text += "  public static let schema = defineSchema { model in\n    let \(keys) = \(name).keys\n    \n"
        text += "    model.listPluralName = \"\(name)s\"\n    model.syncPluralName = \"\(name)s\"\n    \n"
        text += "    model.fields(\n      " + fields.map { fieldDefinition($0, keys, ModelIntrospection.Model.none) }.joined(separator: ",\n      ")
        return text + "\n    )\n    }\n}\n"
    }

    private func registrationFile() -> String {
        var text = Self.header + "// Contains the set of classes that conforms to the `Model` protocol. \n\n"
        text += "final public class AmplifyModels: AmplifyModelRegistration {\n  public let version: String = \"\(version)\"\n  \n"
        text += "  public func registerModels(registry: ModelRegistry.Type) {\n"
        for model in introspection.models { text += "    ModelRegistry.register(modelType: \(model.name).self)\n" }
        return text + "  }\n}\n"
    }

    // MARK: Names

    private func quoted(_ names: [String]) -> String { "[" + names.map { "\"\($0)\"" }.joined(separator: ", ") + "]" }
    private func camel(_ name: String) -> String { name.prefix(1).lowercased() + name.dropFirst() }
    private func pascal(_ name: String) -> String { name.prefix(1).uppercased() + name.dropFirst() }

    /// An enum value's case name: `IN_PROGRESS` → `inProgress`, a keyword in backticks.
    private func caseName(_ value: String) -> String {
        let words = value.split(separator: "_").map { $0.lowercased() }
        let name = (words.first ?? "") + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        return Self.keywords.contains(name) ? "`\(name)`" : name
    }

    private static let keywords: Set<String> = [
        "private", "public", "internal", "fileprivate", "open", "default", "case", "class", "struct", "enum", "func", "let", "var", "if",
        "else", "for", "while", "repeat", "return", "switch", "in", "is", "as", "true", "false", "nil", "self", "super", "static",
        "protocol", "extension", "import", "init", "deinit", "where", "do", "catch", "try", "throw", "throws", "break", "continue", "guard",
        "operator", "subscript", "typealias", "associatedtype", "inout", "defer", "fallthrough",
    ]
}

extension ModelIntrospection.Model {
    /// A stand-in for a non-model's fields, which have no key.
    static var none: ModelIntrospection.Model {
        ModelIntrospection.Model(name: "", pluralName: "", fields: [], keys: [], authRules: [], primaryKey: [], isCustomPrimaryKey: false)
    }
}
