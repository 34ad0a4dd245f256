/// The kind of a model's identifier: ``ModelIdentifierFormat/Default`` or
/// ``ModelIdentifierFormat/Custom``.
public protocol AnyModelIdentifierFormat {}

/// The two kinds of identifier.
public enum ModelIdentifierFormat {
    /// A single `id: String`.
    public enum Default: AnyModelIdentifierFormat {
        /// The field's name.
        public static let name = "id"
    }

    /// A custom or composite primary key.
    public enum Custom: AnyModelIdentifierFormat {
        /// What joins a composite key's quoted values in its text.
        public static let separator = "#"
    }
}

/// What a generated model says of its identifier: its format and type.
public protocol ModelIdentifiable {
    /// ``ModelIdentifierFormat/Default`` or ``ModelIdentifierFormat/Custom``.
    associatedtype IdentifierFormat: AnyModelIdentifierFormat
    /// The identifier's type (`DefaultModelIdentifier<Self>` or `ModelIdentifier<Self, .Custom>`).
    associatedtype IdentifierProtocol: ModelIdentifierProtocol
}

/// A model's identifier: its primary key's fields and values.
public protocol ModelIdentifierProtocol {
    /// One field of the key and its value.
    typealias Field = (name: String, value: any Persistable)
    /// The key's fields and values, in order.
    typealias Fields = [Field]
    /// The key's fields and values, in order.
    var fields: Fields { get }
    /// The identifier as text.
    var stringValue: String { get }
    /// The fields' names.
    var keys: [String] { get }
    /// The fields' values.
    var values: [any Persistable] { get }
    /// A predicate matching the model with this identifier.
    var predicate: any QueryPredicate { get }
}

extension ModelIdentifierProtocol {
    /// The one value's text, or each value quoted and joined with `#`.
    public var stringValue: String {
        if fields.count == 1, let field = fields.first { return PersistableValue.text(of: field.value) }
        return fields.map { "\"\(PersistableValue.text(of: $0.value))\"" }.joined(separator: ModelIdentifierFormat.Custom.separator)
    }

    public var keys: [String] { fields.map(\.name) }

    public var values: [any Persistable] { fields.map(\.value) }

    public var predicate: any QueryPredicate {
        guard let first = fields.first else { return QueryPredicateConstant.all }
        return fields.dropFirst().reduce(field(first.name).eq(first.value) as any QueryPredicate) { predicate, next in
            field(next.name).eq(next.value) && predicate
        }
    }
}

/// An identifier of a model of type `M` in format `F`.
public struct ModelIdentifier<M: Model, F: AnyModelIdentifierFormat>: ModelIdentifierProtocol {
    /// The key's fields and values.
    public var fields: Fields

    /// An identifier of these fields.
    public init(fields: Fields) {
        self.fields = fields
    }
}

extension ModelIdentifier where F == ModelIdentifierFormat.Custom {
    /// A custom identifier of these fields (what generated `identifier(…)` functions call).
    public static func make(fields: ModelIdentifierProtocol.Field...) -> Self { Self(fields: fields) }
    /// A custom identifier of these fields.
    public static func make(fields: [ModelIdentifierProtocol.Field]) -> Self { Self(fields: fields) }
}

/// The identifier of a model keyed by `id`.
public typealias DefaultModelIdentifier<M: Model> = ModelIdentifier<M, ModelIdentifierFormat.Default>

extension ModelIdentifier where F == ModelIdentifierFormat.Default {
    /// The identifier `id`.
    public static func makeDefault(id: String) -> Self {
        Self(fields: [(name: ModelIdentifierFormat.Default.name, value: id)])
    }

    /// The identifier of `model` (its `id`; empty when it has none).
    public static func makeDefault(fromModel model: M) -> Self {
        makeDefault(id: (model[ModelIdentifierFormat.Default.name] as? String) ?? "")
    }
}
