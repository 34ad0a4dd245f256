import Foundation

/// JSON whose objects keep their members' order: codegen writes fields in the order the
/// introspection lists them.
package indirect enum OrderedJSON: Equatable {
    case object([(String, OrderedJSON)])
    case array([OrderedJSON])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    package static func == (lhs: OrderedJSON, rhs: OrderedJSON) -> Bool {
        switch (lhs, rhs) {
        case (.object(let one), .object(let other)): one.elementsEqual(other) { $0.0 == $1.0 && $0.1 == $1.1 }
        case (.array(let one), .array(let other)): one == other
        case (.string(let one), .string(let other)): one == other
        case (.number(let one), .number(let other)): one == other
        case (.bool(let one), .bool(let other)): one == other
        case (.null, .null): true
        default: false
        }
    }

    /// The member `key` of an object.
    package subscript(key: String) -> OrderedJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    package var string: String? { if case .string(let value) = self { value } else { nil } }
    package var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    package var array: [OrderedJSON]? { if case .array(let value) = self { value } else { nil } }
    package var members: [(String, OrderedJSON)]? { if case .object(let value) = self { value } else { nil } }

    /// The JSON text `bytes` holds.
    /// - Throws: ``CodegenError`` naming the offset where the text stops being JSON.
    package static func parse(_ bytes: [UInt8]) throws -> OrderedJSON {
        var parser = Parser(bytes: bytes)
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == bytes.count else { throw parser.failure("text after the JSON value") }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
        }

        func failure(_ what: String) -> CodegenError {
            CodegenError("The introspection is not valid JSON: \(what) at byte \(index).")
        }

        mutating func value(depth: Int) throws -> OrderedJSON {
            guard depth < 64 else { throw failure("nesting deeper than 64") }
            skipSpace()
            guard index < bytes.count else { throw failure("the end of the text") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var members: [(String, OrderedJSON)] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(members)
                }
                while true {
                    skipSpace()
                    guard case .string(let key) = try value(depth: depth + 1) else { throw failure("a member name that is not a string") }
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("no ':' after a member name") }
                    index += 1
                    members.append((key, try value(depth: depth + 1)))
                    skipSpace()
                    guard index < bytes.count else { throw failure("an unfinished object") }
                    if bytes[index] == UInt8(ascii: ",") {
                        index += 1
                    } else if bytes[index] == UInt8(ascii: "}") {
                        index += 1
                        return .object(members)
                    } else {
                        throw failure("no ',' or '}' in an object")
                    }
                }
            case UInt8(ascii: "["):
                index += 1
                var elements: [OrderedJSON] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(elements)
                }
                while true {
                    elements.append(try value(depth: depth + 1))
                    skipSpace()
                    guard index < bytes.count else { throw failure("an unfinished array") }
                    if bytes[index] == UInt8(ascii: ",") {
                        index += 1
                    } else if bytes[index] == UInt8(ascii: "]") {
                        index += 1
                        return .array(elements)
                    } else {
                        throw failure("no ',' or ']' in an array")
                    }
                }
            case UInt8(ascii: "\""):
                let start = index
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard index < bytes.count else { throw failure("an unfinished string") }
                index += 1
                guard let text = try? JSONDecoder().decode(String.self, from: Data(bytes[start..<index])) else {
                    throw failure("a string with a bad escape")
                }
                return .string(text)
            default:
                let start = index
                while index < bytes.count, !" \n\r\t,]}".utf8.contains(bytes[index]) { index += 1 }
                let word = String(decoding: bytes[start..<index], as: UTF8.self)
                switch word {
                case "true": return .bool(true)
                case "false": return .bool(false)
                case "null": return .null
                default:
                    guard let number = Double(word) else { throw failure("'\(word.prefix(20))'") }
                    return .number(number)
                }
            }
        }
    }
}

/// A codegen failure, said plainly.
package struct CodegenError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
