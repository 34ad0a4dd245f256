import Foundation

/// A variable that has no JSON form.
struct GraphQLVariableError: Error, CustomStringConvertible {
    let description: String
}

extension JSONValue {
    /// The JSON form of a GraphQL variable: a `JSONValue` as it is; `String`, `Bool`, integers
    /// and floating-point numbers; `nil`, `NSNull` and `Optional.none` as `null`; arrays and
    /// `[String: …]` dictionaries of these; any other `Encodable` through `JSONEncoder`.
    /// - Throws: an error naming the type when the value has no JSON form.
    public init(variable value: any Sendable) throws {
        self = try Self.convert(value)
    }

    private static func convert(_ value: Any) throws -> JSONValue {
        switch value {
        case let json as JSONValue: return json
        case let text as String: return .string(text)
        case let flag as Bool: return .boolean(flag)
        case let number as Int: return .number(Double(number))
        case let number as Int8: return .number(Double(number))
        case let number as Int16: return .number(Double(number))
        case let number as Int32: return .number(Double(number))
        case let number as Int64: return .number(Double(number))
        case let number as UInt: return .number(Double(number))
        case let number as UInt8: return .number(Double(number))
        case let number as UInt16: return .number(Double(number))
        case let number as UInt32: return .number(Double(number))
        case let number as UInt64: return .number(Double(number))
        case let number as Double: return .number(number)
        case let number as Float: return .number(Double(number))
        case is NSNull: return .null
        case let array as [Any]: return .array(try array.map(convert))
        case let object as [String: Any]: return .object(try object.mapValues(convert))
        default: break
        }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return .null }
            return try convert(wrapped)
        }
        if let encodable = value as? any Encodable {
            let data = try JSONEncoder().encode(encodable)
            return try JSONDecoder().decode(JSONValue.self, from: data)
        }
        throw GraphQLVariableError(description: "\(type(of: value)) is neither JSON nor Encodable")
    }
}
