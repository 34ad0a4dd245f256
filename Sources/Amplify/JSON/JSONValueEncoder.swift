/// Encodes an `Encodable` value straight into a ``JSONValue``: the tree `JSONEncoder` would
/// write and ``JSONValueParser`` read back, without the text in between (keys the value leaves
/// out are absent; numbers are `Double`s, as parsed).
///
/// Used where a typed value becomes a configuration, as `Amplify.configure(_:)` does with an
/// `AmplifyOutputsData`.
package enum JSONValueEncoder {
    /// The JSON value `value` encodes to.
    /// - Throws: `EncodingError.invalidValue` for a number that is not finite (as `JSONEncoder`),
    ///   and what `value`'s own `encode(to:)` throws.
    package static func encode(_ value: some Encodable) throws -> JSONValue {
        let root = EncodedNode()
        try value.encode(to: TreeEncoder(node: root, codingPath: []))
        return root.json
    }
}

/// One value under construction: a leaf, or an object or array whose members are still being
/// encoded (containers hold the node, so a nested container writes into its parent).
private final class EncodedNode {
    private var leaf: JSONValue?
    private var members: [String: EncodedNode]?
    private var elements: [EncodedNode]?

    var json: JSONValue {
        if let members { return .object(members.mapValues(\.json)) }
        if let elements { return .array(elements.map(\.json)) }
        // A value that asked for no container encodes as an empty object, as with JSONEncoder.
        return leaf ?? .object([:])
    }

    func set(_ value: JSONValue) {
        leaf = value
        members = nil
        elements = nil
    }

    func becomeObject() {
        guard members == nil else { return }
        leaf = nil
        elements = nil
        members = [:]
    }

    func becomeArray() {
        guard elements == nil else { return }
        leaf = nil
        members = nil
        elements = []
    }

    /// A new node for `key` (a key encoded twice keeps the later value, as JSONEncoder).
    func member(_ key: String) -> EncodedNode {
        becomeObject()
        let node = EncodedNode()
        members?[key] = node
        return node
    }

    func append() -> EncodedNode {
        becomeArray()
        let node = EncodedNode()
        elements?.append(node)
        return node
    }

    var count: Int { elements?.count ?? 0 }
}

private struct EncodedIndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

private func number(_ value: Double, _ codingPath: [any CodingKey]) throws -> JSONValue {
    guard value.isFinite else {
        throw EncodingError.invalidValue(
            value, EncodingError.Context(codingPath: codingPath, debugDescription: "Unable to encode \(value) directly in JSON."))
    }
    return .number(value)
}

private struct TreeEncoder: Encoder {
    let node: EncodedNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeArray()
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleContainer(node: node, codingPath: codingPath) }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodedNode
    let codingPath: [any CodingKey]

    private func put(_ value: JSONValue, _ key: Key) { node.member(key.stringValue).set(value) }

    mutating func encodeNil(forKey key: Key) throws { put(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { put(.boolean(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { put(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { put(try number(value, codingPath + [key]), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { put(try number(Double(value), codingPath + [key]), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { put(.number(Double(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { put(.number(Double(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { put(.number(Double(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { put(.number(Double(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { put(.number(Double(value)), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { put(.number(Double(value)), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { put(.number(Double(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { put(.number(Double(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { put(.number(Double(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { put(.number(Double(value)), key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try value.encode(to: TreeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let child = node.member(key.stringValue)
        child.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = node.member(key.stringValue)
        child.becomeArray()
        return UnkeyedContainer(node: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { TreeEncoder(node: node.member("super"), codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { TreeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]) }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: EncodedNode
    let codingPath: [any CodingKey]
    var count: Int { node.count }

    private func put(_ value: JSONValue) { node.append().set(value) }
    private var nextPath: [any CodingKey] { codingPath + [EncodedIndexKey(intValue: count)] }

    mutating func encodeNil() throws { put(.null) }
    mutating func encode(_ value: Bool) throws { put(.boolean(value)) }
    mutating func encode(_ value: String) throws { put(.string(value)) }
    mutating func encode(_ value: Double) throws { put(try number(value, nextPath)) }
    mutating func encode(_ value: Float) throws { put(try number(Double(value), nextPath)) }
    mutating func encode(_ value: Int) throws { put(.number(Double(value))) }
    mutating func encode(_ value: Int8) throws { put(.number(Double(value))) }
    mutating func encode(_ value: Int16) throws { put(.number(Double(value))) }
    mutating func encode(_ value: Int32) throws { put(.number(Double(value))) }
    mutating func encode(_ value: Int64) throws { put(.number(Double(value))) }
    mutating func encode(_ value: UInt) throws { put(.number(Double(value))) }
    mutating func encode(_ value: UInt8) throws { put(.number(Double(value))) }
    mutating func encode(_ value: UInt16) throws { put(.number(Double(value))) }
    mutating func encode(_ value: UInt32) throws { put(.number(Double(value))) }
    mutating func encode(_ value: UInt64) throws { put(.number(Double(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        let path = nextPath
        try value.encode(to: TreeEncoder(node: node.append(), codingPath: path))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = nextPath
        let child = node.append()
        child.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: child, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        let child = node.append()
        child.becomeArray()
        return UnkeyedContainer(node: child, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let path = nextPath
        return TreeEncoder(node: node.append(), codingPath: path)
    }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let node: EncodedNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.set(.null) }
    mutating func encode(_ value: Bool) throws { node.set(.boolean(value)) }
    mutating func encode(_ value: String) throws { node.set(.string(value)) }
    mutating func encode(_ value: Double) throws { node.set(try number(value, codingPath)) }
    mutating func encode(_ value: Float) throws { node.set(try number(Double(value), codingPath)) }
    mutating func encode(_ value: Int) throws { node.set(.number(Double(value))) }
    mutating func encode(_ value: Int8) throws { node.set(.number(Double(value))) }
    mutating func encode(_ value: Int16) throws { node.set(.number(Double(value))) }
    mutating func encode(_ value: Int32) throws { node.set(.number(Double(value))) }
    mutating func encode(_ value: Int64) throws { node.set(.number(Double(value))) }
    mutating func encode(_ value: UInt) throws { node.set(.number(Double(value))) }
    mutating func encode(_ value: UInt8) throws { node.set(.number(Double(value))) }
    mutating func encode(_ value: UInt16) throws { node.set(.number(Double(value))) }
    mutating func encode(_ value: UInt32) throws { node.set(.number(Double(value))) }
    mutating func encode(_ value: UInt64) throws { node.set(.number(Double(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws { try value.encode(to: TreeEncoder(node: node, codingPath: codingPath)) }
}
