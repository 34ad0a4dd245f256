import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a configuration file once and parses it once, with errors that name the file and, for
/// a syntax error, the line and column the parser stopped at.
enum ConfigurationFileReader {
    /// Which error case a failure is reported as.
    enum Kind {
        case gen1, gen2

        func error(_ description: String, _ suggestion: String, _ underlying: (any Error)? = nil) -> ConfigurationError {
            switch self {
            case .gen1: .invalidAmplifyConfigurationFile(description, suggestion, underlying)
            case .gen2: .invalidAmplifyOutputsFile(description, suggestion, underlying)
            }
        }
    }

    /// A configuration is never megabytes: larger files are refused before they are read.
    static let maximumSize = 4 * 1024 * 1024

    /// The bytes of `file`, which must be a regular file (after symbolic links) of at most
    /// ``maximumSize`` bytes.
    static func read(_ file: URL, kind: Kind) throws -> [UInt8] {
        var info = stat()
        guard stat(file.path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR {
                throw kind.error(
                    "Configuration file not found: \(file.path).",
                    "Check the path, or run `amplify pull` (Gen 1) / `npx ampx generate outputs` (Gen 2) to write it.")
            }
            let reason = String(cString: strerror(errno))
            throw kind.error("Could not read configuration file \(file.path): \(reason).", "Check that the file is readable by this process.")
        }
        let type = info.st_mode & S_IFMT
        guard type == S_IFREG else {
            throw kind.error(
                "\(file.path) is \(describe(fileType: type)), not a configuration file.",
                "Pass the path of the JSON file itself (amplifyconfiguration.json, amplify_outputs.json or awsconfiguration.json).")
        }
        guard info.st_size <= maximumSize else {
            throw kind.error(
                "\(file.path) is \(info.st_size) bytes; a configuration file is at most \(maximumSize / 1024 / 1024) MiB.",
                "Check that the path names the configuration file the Amplify tooling wrote, not a data file.")
        }
        do {
            let data = try Data(contentsOf: file)
            guard data.count <= maximumSize else {
                throw kind.error("\(file.path) grew beyond \(maximumSize / 1024 / 1024) MiB while it was read.", "Pass a configuration file.")
            }
            return [UInt8](data)
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw kind.error(
                "Could not read configuration file \(file.path): \(error.localizedDescription).",
                "Check that the file is readable by this process.", error)
        }
    }

    private static func describe(fileType: mode_t) -> String {
        switch fileType {
        case S_IFDIR: "a folder"
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }

    /// Parses `bytes` as one JSON document (a leading UTF-8 byte-order mark is skipped).
    static func parse(_ bytes: [UInt8], file: URL?, kind: Kind) throws -> JSONValue {
        let name = file?.path ?? "the configuration data"
        guard bytes.count <= maximumSize else {
            throw kind.error(
                "\(name) is \(bytes.count) bytes; a configuration is at most \(maximumSize / 1024 / 1024) MiB.", "Pass a configuration file.")
        }
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            throw kind.error("\(name) is empty.", "Write a JSON object with one block per category.")
        }
        // As amplify-swift: a file whose bytes cannot be decoded (not UTF-8, not JSON) is
        // `unableToDecode`, whatever its generation; one that cannot be read is the file error.
        if let offset = firstInvalidUTF8(body) {
            let (line, column) = lineAndColumn(of: offset + (bytes.count - body.count), in: bytes)
            throw ConfigurationError.unableToDecode(
                "\(name) is not UTF-8 text: invalid byte at line \(line), column \(column).",
                "Save the file as UTF-8 (the Amplify tooling writes UTF-8).", nil)
        }
        do {
            return try JSONValue(parsing: Array(body))
        } catch {
            let offset = error.offset + (bytes.count - body.count)
            let (line, column) = lineAndColumn(of: offset, in: bytes)
            throw ConfigurationError.unableToDecode(
                "\(name) is not valid JSON: \(error.reason) (line \(line), column \(column)).",
                "Fix the JSON syntax at that position (a JSON linter such as `python3 -m json.tool` shows it too).",
                error)
        }
    }

    /// The offset of the first byte that does not belong to a well-formed UTF-8 sequence.
    static func firstInvalidUTF8(_ bytes: ArraySlice<UInt8>) -> Int? {
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    /// The 1-based line and column (in characters, counting UTF-8 lead bytes) of a byte offset.
    static func lineAndColumn(of offset: Int, in bytes: [UInt8]) -> (Int, Int) {
        var line = 1
        var column = 1
        for byte in bytes.prefix(offset) {
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
