import Foundation

/// Reads a configuration file and parses it as JSON, with errors that name the file and, for a
/// syntax error, the line and column.
enum ConfigurationFileReader {
    enum Kind {
        case gen1, gen2

        func error(_ description: String, _ suggestion: String, _ underlying: (any Error)? = nil) -> ConfigurationError {
            switch self {
            case .gen1: .invalidAmplifyConfigurationFile(description, suggestion, underlying)
            case .gen2: .invalidAmplifyOutputsFile(description, suggestion, underlying)
            }
        }
    }

    static func read(_ file: URL, kind: Kind) throws -> Data {
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw kind.error(
                "Configuration file not found: \(file.path).",
                "Check the path, or run `amplify pull` (Gen 1) / `npx ampx generate outputs` (Gen 2) to write it.")
        }
        do {
            return try Data(contentsOf: file)
        } catch {
            throw kind.error(
                "Could not read configuration file \(file.path): \(error.localizedDescription).",
                "Check that the file is readable by this process.", error)
        }
    }

    static func parse(_ data: Data, file: URL?, kind: Kind) throws -> JSONValue {
        let name = file?.path ?? "the configuration data"
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            throw kind.error("\(name) is empty.", "Write a JSON object with one block per category.")
        }
        do {
            return try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw kind.error(
                "\(name) is not valid JSON: \(syntaxErrorLocation(in: data)).",
                "Fix the JSON syntax at that position (a JSON linter such as `python3 -m json.tool` shows it too).",
                error)
        }
    }

    /// "unexpected character at line 3, column 9 (byte 19)" from Foundation's parser, whose
    /// message gives the character offset.
    static func syntaxErrorLocation(in data: Data) -> String {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch let error as NSError {
            let detail = (error.userInfo[NSDebugDescriptionErrorKey] as? String) ?? error.localizedDescription
            if let offset = characterOffset(in: detail) {
                let (line, column) = lineAndColumn(of: offset, in: data)
                return "\(detail.trimmingCharacters(in: CharacterSet(charactersIn: "."))) (line \(line), column \(column))"
            }
            return detail.trimmingCharacters(in: CharacterSet(charactersIn: "."))
        }
        return "the JSON decoder rejected it"
    }

    private static func characterOffset(in message: String) -> Int? {
        guard let range = message.range(of: "character ") else { return nil }
        let digits = message[range.upperBound...].prefix { $0.isNumber }
        return Int(digits)
    }

    private static func lineAndColumn(of offset: Int, in data: Data) -> (Int, Int) {
        var line = 1
        var column = 1
        for (index, byte) in data.enumerated() {
            if index >= offset { break }
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column)
    }
}
