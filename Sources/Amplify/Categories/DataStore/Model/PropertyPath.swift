/// A property's place in a model's paths: its name, whether it is a list, and its parent.
public struct PropertyPathMetadata {
    /// The property's name.
    public let name: String
    /// Whether it is a list of models.
    public let isCollection: Bool
    /// The path it hangs from, `nil` for the root.
    public let parent: (any PropertyPath)?
}

/// A path to a model's property, as generated `ModelPath` extensions spell them
/// (`Post.rootPath.comments.content`), used to pick associations to include.
public protocol PropertyPath {
    /// The path's metadata.
    func getMetadata() -> PropertyPathMetadata
}

/// A path to a model (the root, or an association).
public protocol PropertyContainerPath: PropertyPath {
    /// The dotted path from the root (`comments.post`), empty for the root.
    func getKeyPath() -> String
    /// The model type at the end of the path.
    func getModelType() -> any Model.Type
}

extension PropertyContainerPath {
    public func getKeyPath() -> String {
        var metadata = getMetadata()
        var names: [String] = []
        while let parent = metadata.parent {
            names.insert(metadata.name, at: 0)
            metadata = parent.getMetadata()
        }
        return names.joined(separator: ".")
    }
}

/// A path to a scalar field.
public struct FieldPath<ValueType>: PropertyPath {
    private let metadata: PropertyPathMetadata

    init(name: String, parent: (any PropertyPath)? = nil) {
        metadata = PropertyPathMetadata(name: name, isCollection: false, parent: parent)
    }

    public func getMetadata() -> PropertyPathMetadata { metadata }
}

/// A path to a model of type `ModelType`; generated files subclass it as `X.Path` and extend it
/// with one property a field.
open class ModelPath<ModelType: Model>: PropertyContainerPath {
    private let metadata: PropertyPathMetadata

    /// A path named `name` under `parent` (the root when `parent` is `nil`).
    public init(name: String = "root", isCollection: Bool = false, parent: (any PropertyPath)? = nil) {
        metadata = PropertyPathMetadata(name: name, isCollection: isCollection, parent: parent)
    }

    public func getMetadata() -> PropertyPathMetadata { metadata }
    public func getModelType() -> any Model.Type { ModelType.self }
    /// Whether this is the root.
    public func isRoot() -> Bool { metadata.parent == nil }

    /// The path of the `ID` field `name`.
    public func id(_ name: String = "id") -> FieldPath<String> { FieldPath(name: name, parent: self) }
    /// The path of a `String` field.
    public func string(_ name: String) -> FieldPath<String> { FieldPath(name: name, parent: self) }
    /// The path of a `Bool` field.
    public func bool(_ name: String) -> FieldPath<Bool> { FieldPath(name: name, parent: self) }
    /// The path of an `AWSDate` field.
    public func date(_ name: String) -> FieldPath<Temporal.Date> { FieldPath(name: name, parent: self) }
    /// The path of an `AWSDateTime` field.
    public func datetime(_ name: String) -> FieldPath<Temporal.DateTime> { FieldPath(name: name, parent: self) }
    /// The path of an `AWSTime` field.
    public func time(_ name: String) -> FieldPath<Temporal.Time> { FieldPath(name: name, parent: self) }
    /// The path of an `Int` field.
    public func int(_ name: String) -> FieldPath<Int> { FieldPath(name: name, parent: self) }
    /// The path of a `Double` field.
    public func double(_ name: String) -> FieldPath<Double> { FieldPath(name: name, parent: self) }
}
