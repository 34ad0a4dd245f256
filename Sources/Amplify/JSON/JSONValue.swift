import Foundation

/// A JSON value: what each plugin receives as its configuration.
///
/// Mirrors amplify-swift's `JSONValue`: `Codable`, `Equatable`, buildable from literals, with
/// accessors (`stringValue`, `intValue`, `value(at: "A.B")`, subscripts, and members by name:
/// `json.auth?.plugins`). One difference: an `Int` subscript past an array's end is `nil` here,
/// where amplify-swift traps.
@dynamicMemberLookup
public enum JSONValue: Sendable, Hashable {
    /// `[...]`
    case array([JSONValue])
    /// `true` or `false`
    case boolean(Bool)
    /// Any JSON number.
    case number(Double)
    /// `{...}`
    case object([String: JSONValue])
    /// `"..."`
    case string(String)
    /// `null`
    case null
}

extension JSONValue: Codable {
    /// Decodes any JSON value.
    /// - Throws: `DecodingError` if the input is not JSON.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .boolean(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value as JSON.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .array(let value): try container.encode(value)
        case .boolean(let value): try container.encode(value)
        case .number(let value):
            if value.rounded() == value, abs(value) < 1e15 { try container.encode(Int64(value)) } else { try container.encode(value) }
        case .object(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }
}

extension JSONValue {
    /// The string, if this is a string.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The number, if this is a number.
    public var doubleValue: Double? { if case .number(let value) = self { value } else { nil } }
    /// The number as an integer, if this is a number with no fractional part.
    public var intValue: Int? {
        guard case .number(let value) = self, value.rounded() == value, abs(value) < 9.0e15 else { return nil }
        return Int(value)
    }
    /// The Boolean, if this is a Boolean.
    public var booleanValue: Bool? { if case .boolean(let value) = self { value } else { nil } }
    /// The members, if this is an object.
    public var asObject: [String: JSONValue]? { if case .object(let value) = self { value } else { nil } }
    /// The elements, if this is an array.
    public var asArray: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    /// Whether this is `null`.
    public var isNull: Bool { self == .null }

    /// The member named `key`, if this is an object that has it.
    public subscript(key: String) -> JSONValue? { asObject?[key] }

    /// The element at `index` of an array (`nil` past its end), or, as in amplify-swift, the
    /// member named `"\(index)"` of an object.
    public subscript(index: Int) -> JSONValue? {
        // Spelled out: a bare `nil` beside a `JSONValue` would be read as the literal `.null`.
        switch self {
        case .array(let array): array.indices.contains(index) ? .some(array[index]) : .none
        case .object(let object): object[String(index)]
        default: .none
        }
    }

    /// The member named `member`, if this is an object that has it: `json.auth?.plugins`.
    public subscript(dynamicMember member: String) -> JSONValue? {
        self[member]
    }

    /// The value at a dotted path of object keys (`"CognitoUserPool.Default.PoolId"`), if every
    /// step exists.
    public func value(at keyPath: String) -> JSONValue? {
        value(at: keyPath, separatedBy: ".")
    }

    /// The value at a path of object keys joined by `separator` (`"a/b"` with `"/"`), if every
    /// step exists.
    public func value<Separator: StringProtocol>(at keyPath: String, separatedBy separator: Separator) -> JSONValue? {
        var current: JSONValue? = self
        for key in keyPath.components(separatedBy: separator) {
            current = current?[key]
        }
        return current
    }

    /// The value at `keyPath`, or `defaultValue` when some step is missing.
    public func value(at keyPath: String, withDefault defaultValue: JSONValue) -> JSONValue {
        value(at: keyPath) ?? defaultValue
    }

    /// A short name of the value's JSON type, for error messages ("an object", "a string", ...).
    public var typeDescription: String {
        switch self {
        case .array: "an array"
        case .boolean: "a Boolean"
        case .number: "a number"
        case .object: "an object"
        case .string: "a string"
        case .null: "null"
        }
    }
}

extension JSONValue: ExpressibleByArrayLiteral, ExpressibleByBooleanLiteral, ExpressibleByDictionaryLiteral,
    ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral, ExpressibleByNilLiteral, ExpressibleByStringLiteral
{
    /// `[1, "a"]`
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// `true`
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
    /// `["key": "value"]`
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    /// `1.5`
    public init(floatLiteral value: Double) { self = .number(value) }
    /// `1`
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// `nil`
    public init(nilLiteral: ()) { self = .null }
    /// `"text"`
    public init(stringLiteral value: String) { self = .string(value) }
}
