import Foundation

/// The one path from a configuration file to an ``AmplifyConfiguration``: read once, parse
/// once, recognise the shape, translate it into the category shape plugins read, check it.
package enum ConfigurationDocument {
    /// What a translator makes of a file: category blocks in the Gen 1 shape, and findings.
    struct Translation {
        var categories: [String: JSONValue] = [:]
        var findings: [ConfigurationFinding] = []
        var custom: JSONValue?
        /// Where each translated value came from (see `AmplifyConfiguration.sourcePaths`).
        var sourcePaths: [String: String] = [:]
    }

    /// Loads the file at `url`, whatever its shape.
    static func load(_ url: URL) throws -> AmplifyConfiguration {
        let kind: ConfigurationFileReader.Kind = url.lastPathComponent == "amplify_outputs.json" ? .gen2 : .gen1
        let bytes = try ConfigurationFileReader.read(url, kind: kind)
        return try configuration(from: bytes, file: url)
    }

    /// Parses and translates `bytes`, which came from `file` (or from memory when `nil`).
    /// `requireGen2` refuses any other shape (for `Amplify.configure(with:)`).
    package static func configuration(from bytes: [UInt8], file: URL?, requireGen2: Bool = false) throws -> AmplifyConfiguration {
        let kind: ConfigurationFileReader.Kind = requireGen2 || file?.lastPathComponent == "amplify_outputs.json" ? .gen2 : .gen1
        return try configuration(from: ConfigurationFileReader.parse(bytes, file: file, kind: kind), file: file, requireGen2: requireGen2)
    }

    /// Translates `json`, parsed from `file` (or built in memory when `nil`), as
    /// the bytes-taking `configuration(from:file:requireGen2:)` does after parsing.
    static func configuration(from json: JSONValue, file: URL?, requireGen2: Bool) throws -> AmplifyConfiguration {
        let named = file?.lastPathComponent
        let kind: ConfigurationFileReader.Kind = requireGen2 || named == "amplify_outputs.json" ? .gen2 : .gen1
        if let path = firstStringWithNUL(json) {
            let name = file?.path ?? "the configuration data"
            throw kind.error(
                "`\(path)` in \(name) contains a NUL character (\\u0000), which no path, id or URL may hold.",
                "Remove the \\u0000 escape from the value.")
        }
        let format = ConfigurationFormat.recognise(json, named: requireGen2 ? "amplify_outputs.json" : named)
        let name = file?.path ?? (requireGen2 ? "amplify_outputs data" : "the configuration data")
        let translation: Translation
        switch format.shape {
        case .gen1: translation = Translation(categories: json.asObject ?? [:])
        case .awsConfiguration: translation = AWSConfigurationTranslator.translate(json, name: name)
        case .gen2: translation = try AmplifyOutputsTranslator.translate(json, name: name)
        case .amplifyJSFlat: translation = try AmplifyJSTranslator.translateFlat(json, name: name)
        case .amplifyJSResources: translation = try AmplifyJSTranslator.translateResources(json, name: name)
        }
        // A Gen 1 file is checked as it is, so a top level that is not an object is named as such.
        let shaped: JSONValue = format == .gen1 ? json : .object(translation.categories)
        do {
            return finish(try AmplifyConfiguration(validating: shaped, file: file), file: file, format: format, translation: translation)
        } catch let error as ConfigurationError where format.isGen2 {
            // A Gen 2 file that was read but does not decode is amplify-swift's `unableToDecode`.
            guard case .invalidAmplifyConfigurationFile = error else { throw error }
            throw ConfigurationError.unableToDecode(error.errorDescription, error.recoverySuggestion, error)
        }
    }

    /// The JSON path of the first string (value or key) holding U+0000, which C APIs would cut short.
    private static func firstStringWithNUL(_ value: JSONValue, at path: String = "") -> String? {
        switch value {
        case .string(let text): return text.utf8.contains(0) ? (path.isEmpty ? "(top level)" : path) : nil
        case .array(let items):
            for (index, item) in items.enumerated() {
                if let found = firstStringWithNUL(item, at: "\(path)[\(index)]") { return found }
            }
            return nil
        case .object(let members):
            for key in members.keys.sorted() {
                let child = path.isEmpty ? key : "\(path).\(key)"
                if key.utf8.contains(0) { return child }
                if let member = members[key], let found = firstStringWithNUL(member, at: child) { return found }
            }
            return nil
        default: return nil
        }
    }

    private static func finish(
        _ configuration: AmplifyConfiguration, file: URL?, format: ConfigurationFormat, translation: Translation
    ) -> AmplifyConfiguration {
        var configuration = configuration
        configuration.baseDirectory = file?.deletingLastPathComponent()
        configuration.sourceFile = file
        configuration.format = format
        configuration.findings = translation.findings + notHandled(configuration, name: file?.path ?? "the configuration")
        configuration.custom = translation.custom
        configuration.sourcePaths = translation.sourcePaths
        return configuration
    }

    /// One finding per block of a category this package does not have.
    private static func notHandled(_ configuration: AmplifyConfiguration, name: String) -> [ConfigurationFinding] {
        configuration.otherCategories.keys.sorted().map { key in
            ConfigurationFinding(
                kind: .notHandled, path: key,
                message: "The `\(key)` block of \(name) is not handled: this package has no \(key) category.",
                suggestion: "Nothing to do: the block is kept (AmplifyConfiguration.otherCategories) for code that reads it.")
        }
    }
}
