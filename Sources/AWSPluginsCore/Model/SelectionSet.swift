import Amplify

/// What a node of a selection set is.
public enum SelectionSetFieldType: Sendable {
    /// The `items`/`nextToken` wrapper of a list.
    case pagination
    /// A model (the root, or an association).
    case model
    /// An embedded (non-model) type.
    case embedded
    /// A scalar field.
    case value
    /// A list of models (`{ items { … } }`).
    case collection
}

/// One node's name and kind.
public final class SelectionSetField {
    /// The field's name; `nil` for the root.
    public var name: String?
    /// What the node is.
    public var fieldType: SelectionSetFieldType

    /// A node.
    public init(name: String? = nil, fieldType: SelectionSetFieldType) {
        self.name = name
        self.fieldType = fieldType
    }
}

/// The fields a document selects, as a tree: a model's fields in `ModelSchema.sortedFields`
/// order, embedded types and associations nested, `__typename` last at every level.
public final class SelectionSet {
    /// This node.
    public let value: SelectionSetField
    /// Its children, in order.
    public private(set) var children: [SelectionSet] = []
    /// The node above.
    public private(set) weak var parent: SelectionSet?

    /// A node.
    public init(value: SelectionSetField) {
        self.value = value
    }

    /// A root node selecting `fields`: only the keys of associated models when `primaryKeysOnly`.
    public convenience init(fields: [ModelField], primaryKeysOnly: Bool = false) {
        self.init(value: SelectionSetField(fieldType: .model))
        withModelFields(fields, primaryKeysOnly: primaryKeysOnly)
    }

    /// Adds `child` last.
    public func addChild(settingParentOf child: SelectionSet) {
        child.parent = self
        children.append(child)
    }

    func withModelFields(_ fields: [ModelField], recursive: Bool = true, primaryKeysOnly: Bool) {
        for field in fields {
            if field.isEmbeddedType, let schema = field.embeddedTypeSchema {
                let child = SelectionSet(value: SelectionSetField(name: field.name, fieldType: .embedded))
                child.withEmbeddableFields(schema.sortedFields)
                addChild(settingParentOf: child)
            } else if field.isBelongsToOrHasOne, let name = field.associatedModelName, let schema = ModelRegistry.modelSchema(from: name) {
                // An association of an association is left out: one level deep.
                guard recursive else { continue }
                let child = SelectionSet(value: SelectionSetField(name: field.name, fieldType: .model))
                child.withModelFields(
                    primaryKeysOnly ? schema.primaryKey.fields : schema.graphQLFields, recursive: false, primaryKeysOnly: primaryKeysOnly)
                addChild(settingParentOf: child)
            } else {
                addChild(settingParentOf: SelectionSet(value: SelectionSetField(name: field.graphQLName, fieldType: .value)))
            }
        }
        addChild(settingParentOf: SelectionSet(value: SelectionSetField(name: "__typename", fieldType: .value)))
    }

    func withEmbeddableFields(_ fields: [ModelField]) {
        for field in fields {
            if field.isEmbeddedType, let schema = field.embeddedTypeSchema {
                let child = SelectionSet(value: SelectionSetField(name: field.name, fieldType: .embedded))
                child.withEmbeddableFields(schema.sortedFields)
                addChild(settingParentOf: child)
            } else {
                addChild(settingParentOf: SelectionSet(value: SelectionSetField(name: field.name, fieldType: .value)))
            }
        }
        addChild(settingParentOf: SelectionSet(value: SelectionSetField(name: "__typename", fieldType: .value)))
    }

    /// The selection's text, each level two spaces deeper than `indentSize` levels.
    public func stringValue(indentSize: Int = 0) -> String {
        let indent = String(repeating: "  ", count: indentSize)
        switch value.fieldType {
        case .model, .pagination, .embedded:
            guard let name = value.name else {
                return children.map { $0.stringValue(indentSize: indentSize) }.joined(separator: "\n")
            }
            return ([indent + name + " {"] + children.map { $0.stringValue(indentSize: indentSize + 1) } + [indent + "}"])
                .joined(separator: "\n")
        case .collection:
            let inner = indent + "  "
            return
                ([indent + (value.name ?? "") + " {", inner + "items {"] + children.map { $0.stringValue(indentSize: indentSize + 2) } + [
                    inner + "}", indent + "}",
                ]).joined(separator: "\n")
        case .value:
            return value.name.map { indent + $0 } ?? ""
        }
    }

    /// The child named `name`.
    public func findChild(byName name: String) -> SelectionSet? {
        children.first { $0.value.name == name }
    }

    /// Replaces the child of `child`'s name with it, or adds it.
    public func replaceChild(_ child: SelectionSet) {
        if let index = children.firstIndex(where: { $0.value.name == child.value.name }) {
            children[index] = child
            child.parent = self
        } else {
            addChild(settingParentOf: child)
        }
    }

    /// Merges `selectionSet` into the child of its name, or adds it.
    public func merge(with selectionSet: SelectionSet) {
        guard let existing = findChild(byName: selectionSet.value.name ?? "") else {
            addChild(settingParentOf: selectionSet)
            return
        }
        var replacements: [SelectionSet] = []
        for child in selectionSet.children {
            if child.value.fieldType != .value, let name = child.value.name, existing.findChild(byName: name) != nil {
                existing.merge(with: child)
            } else {
                replacements.append(child)
            }
        }
        replacements.forEach(existing.replaceChild)
    }
}
