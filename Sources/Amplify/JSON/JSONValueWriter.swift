import Foundation

extension JSONValue {
    /// The value as compact JSON text in UTF-8, written directly rather than through an
    /// `Encoder` (a GraphQL request body through `JSONEncoder` cost about a sixth of the client's
    /// CPU per query). Integral numbers below 10^15 are written without a fraction; other
    /// numbers in Swift's shortest form that reads back to the same `Double`. Object members
    /// come in the dictionary's order, as `JSONEncoder` writes them.
    /// - Throws: `EncodingError.invalidValue` for an infinite or NaN number (JSON has none), as
    ///   `JSONEncoder` does.
    package func jsonBytes() throws -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(128)
        try write(into: &output)
        return output
    }

    /// Appends the value as compact JSON text (as ``jsonBytes()`` writes it) to `output`.
    /// - Throws: `EncodingError.invalidValue` for an infinite or NaN number.
    package func write(into output: inout [UInt8]) throws {
        switch self {
        case .null:
            output.append(contentsOf: "null".utf8)
        case .boolean(let value):
            output.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let value):
            guard value.isFinite else {
                throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: [], debugDescription: "JSON has no number \(value)."))
            }
            if value.rounded() == value, abs(value) < 1e15 {
                output.append(contentsOf: String(Int64(value)).utf8)
            } else {
                output.append(contentsOf: value.description.utf8)
            }
        case .string(let value):
            Self.writeString(value, into: &output)
        case .array(let values):
            output.append(UInt8(ascii: "["))
            for (index, element) in values.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                try element.write(into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            var first = true
            for (key, element) in members {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                Self.writeString(key, into: &output)
                output.append(UInt8(ascii: ":"))
                try element.write(into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends `text` as a JSON string: quotes, backslashes and control characters escaped;
    /// everything else (valid UTF-8, as every Swift string is) as it is. Shared with the other
    /// direct JSON writers of the package (analytics records).
    package static func writeString(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            // Runs that need no escape go in whole.
            var run = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
                run = index + 1
                switch byte {
                case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
                case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                default:
                    output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                    output.append(hexDigits[Int(byte >> 4)])
                    output.append(hexDigits[Int(byte & 0x0F)])
                }
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<bytes.count]))
        }
        output.append(UInt8(ascii: "\""))
    }
}
