import Amplify

/// The name of a GraphQL operation's argument.
public typealias GraphQLParameterName = String

/// A value as it goes into a GraphQL document: as a variable's value, or written inline.
public protocol GraphQLDocumentValueRepresentable: Sendable {
    /// The value as a variable carries it.
    var graphQLDocumentValue: String { get }
    /// The value written in the document (`"text"`, `12`, `true`).
    var graphQLInlineValue: String { get }
}

extension Int: GraphQLDocumentValueRepresentable {
    public var graphQLDocumentValue: String { "\(self)" }
    public var graphQLInlineValue: String { "\(self)" }
}

extension Bool: GraphQLDocumentValueRepresentable {
    public var graphQLDocumentValue: String { "\(self)" }
    public var graphQLInlineValue: String { "\(self)" }
}

extension Double: GraphQLDocumentValueRepresentable {
    public var graphQLDocumentValue: String { "\(self)" }
    public var graphQLInlineValue: String { "\(self)" }
}

extension String: GraphQLDocumentValueRepresentable {
    public var graphQLDocumentValue: String { self }
    /// The text quoted, its quotes and backslashes escaped.
    public var graphQLInlineValue: String {
        "\"" + replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

/// How an argument's value is passed.
public enum GraphQLDocumentInputValue: Sendable {
    /// Written in the document.
    case inline(any GraphQLDocumentValueRepresentable)
    /// A variable holding one value.
    case scalar(any GraphQLDocumentValueRepresentable)
    /// A variable holding an object (an input, a filter).
    case object([String: (any Sendable)?])

    /// Whether the value is written in the document.
    public func isInline() -> Bool {
        if case .inline = self { true } else { false }
    }
}

/// An argument of the operation: its GraphQL type and its value.
public struct GraphQLDocumentInput: Sendable {
    /// The type (`ID!`, `ModelPostFilterInput`).
    public var type: String
    /// The value.
    public var value: GraphQLDocumentInputValue

    /// An argument.
    public init(type: String, value: GraphQLDocumentInputValue) {
        self.type = type
        self.value = value
    }
}

/// A document of one operation on one field (`query GetPost($id: ID!) { getPost(id: $id) { … } }`),
/// as amplify-swift's document builder makes it.
public protocol SingleDirectiveGraphQLDocument {
    /// Query, mutation or subscription.
    var operationType: GraphQLOperationType { get set }
    /// The field (`getPost`, `listPosts`); the operation is named after it.
    var name: String { get set }
    /// The arguments.
    var inputs: [GraphQLParameterName: GraphQLDocumentInput] { get set }
    /// The fields selected.
    var selectionSet: SelectionSet? { get set }

    /// A document of these parts.
    init(
        operationType: GraphQLOperationType, name: String, inputs: [GraphQLParameterName: GraphQLDocumentInput], selectionSet: SelectionSet?)
}

extension SingleDirectiveGraphQLDocument {
    /// This document with some parts replaced.
    public func copy(
        operationType: GraphQLOperationType? = nil, name: String? = nil, inputs: [GraphQLParameterName: GraphQLDocumentInput]? = nil,
        selectionSet: SelectionSet? = nil
    ) -> Self {
        Self(
            operationType: operationType ?? self.operationType, name: name ?? self.name, inputs: inputs ?? self.inputs,
            selectionSet: selectionSet ?? self.selectionSet)
    }

    /// The variables: every argument not written inline; `nil` when there are none.
    public var variables: [String: any Sendable]? {
        guard !inputs.isEmpty else { return nil }
        var variables: [String: any Sendable] = [:]
        for (name, input) in inputs {
            switch input.value {
            case .object(let object): variables[name] = object
            case .scalar(let value): variables[name] = value
            case .inline: break
            }
        }
        return variables
    }

    /// The document's text: arguments sorted by name, variables first, inline values after.
    public var stringValue: String {
        let selection = selectionSet?.stringValue(indentSize: 2) ?? ""
        let operation = name.pascalCased()
        guard !inputs.isEmpty else {
            return "\(operationType.rawValue) \(operation) {\n  \(name) {\n\(selection)\n  }\n}"
        }
        let sorted = inputs.sorted { $0.key < $1.key }
        let variables = sorted.filter { !$0.value.value.isInline() }
        var arguments = variables.map { "\($0.key): $\($0.key)" }
        for (key, input) in sorted {
            if case .inline(let value) = input.value { arguments.append("\(key): \(value.graphQLInlineValue)") }
        }
        let declarations = variables.map { "$\($0.key): \($0.value.type)" }.joined(separator: ", ")
        return "\(operationType.rawValue) \(operation)\(declarations.isEmpty ? "" : "(\(declarations))") {\n"
            + "  \(name)(\(arguments.joined(separator: ", "))) {\n\(selection)\n  }\n}"
    }
}

/// A query document.
public struct GraphQLQuery: SingleDirectiveGraphQLDocument {
    public var operationType: GraphQLOperationType = .query
    public var name: String = ""
    public var inputs: [GraphQLParameterName: GraphQLDocumentInput] = [:]
    public var selectionSet: SelectionSet?

    public init(
        operationType: GraphQLOperationType, name: String, inputs: [GraphQLParameterName: GraphQLDocumentInput], selectionSet: SelectionSet?
    ) {
        self.operationType = operationType
        self.name = name
        self.inputs = inputs
        self.selectionSet = selectionSet
    }

    /// A query selecting `modelSchema`'s fields.
    public init(modelSchema: ModelSchema, primaryKeysOnly: Bool) {
        selectionSet = SelectionSet(fields: modelSchema.graphQLFields, primaryKeysOnly: primaryKeysOnly)
    }
}

/// A mutation document.
public struct GraphQLMutation: SingleDirectiveGraphQLDocument {
    public var operationType: GraphQLOperationType = .mutation
    public var name: String = ""
    public var inputs: [GraphQLParameterName: GraphQLDocumentInput] = [:]
    public var selectionSet: SelectionSet?

    public init(
        operationType: GraphQLOperationType, name: String, inputs: [GraphQLParameterName: GraphQLDocumentInput], selectionSet: SelectionSet?
    ) {
        self.operationType = operationType
        self.name = name
        self.inputs = inputs
        self.selectionSet = selectionSet
    }

    /// A mutation selecting `modelSchema`'s fields.
    public init(modelSchema: ModelSchema, primaryKeysOnly: Bool) {
        selectionSet = SelectionSet(fields: modelSchema.graphQLFields, primaryKeysOnly: primaryKeysOnly)
    }
}

/// A subscription document.
public struct GraphQLSubscription: SingleDirectiveGraphQLDocument {
    public var operationType: GraphQLOperationType = .subscription
    public var name: String = ""
    public var inputs: [GraphQLParameterName: GraphQLDocumentInput] = [:]
    public var selectionSet: SelectionSet?

    public init(
        operationType: GraphQLOperationType, name: String, inputs: [GraphQLParameterName: GraphQLDocumentInput], selectionSet: SelectionSet?
    ) {
        self.operationType = operationType
        self.name = name
        self.inputs = inputs
        self.selectionSet = selectionSet
    }

    /// A subscription selecting `modelSchema`'s fields.
    public init(modelSchema: ModelSchema, primaryKeysOnly: Bool) {
        selectionSet = SelectionSet(fields: modelSchema.graphQLFields, primaryKeysOnly: primaryKeysOnly)
    }
}

extension String {
    /// The first character upper-cased (`getPost` → `GetPost`).
    func pascalCased() -> String { prefix(1).uppercased() + dropFirst() }
    /// The first character lower-cased (`Post` → `post`).
    func camelCased() -> String { prefix(1).lowercased() + dropFirst() }
}
