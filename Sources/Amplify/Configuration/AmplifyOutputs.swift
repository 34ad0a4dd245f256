import Foundation

/// Where a Gen 2 `amplify_outputs.json` comes from, for `Amplify.configure(with:)`.
public struct AmplifyOutputs: Sendable {
    enum Source: Sendable {
        case defaultFile
        case data(Data)
        case file(URL)
        case resource(String)
    }

    let source: Source

    /// `amplify_outputs.json` in the working directory (amplify-swift reads it from the app
    /// bundle; a server has none).
    public static let amplifyOutputs = AmplifyOutputs(source: .defaultFile)

    /// The contents of an `amplify_outputs.json`.
    public static func data(_ data: Data) -> AmplifyOutputs { AmplifyOutputs(source: .data(data)) }

    /// An `amplify_outputs.json` at `url`.
    public static func file(_ url: URL) -> AmplifyOutputs { AmplifyOutputs(source: .file(url)) }

    /// The file `resource` (`.json` added when it has no extension) in the working directory or,
    /// failing that, in the main bundle's resources (beside the executable). amplify-swift looks
    /// only in the app bundle, which a server does not have.
    public static func resource(named resource: String) -> AmplifyOutputs { AmplifyOutputs(source: .resource(resource)) }

    /// The file this stands for, when it is a file.
    var url: URL? {
        let workingDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        switch source {
        case .defaultFile: return workingDirectory.appendingPathComponent("amplify_outputs.json")
        case .file(let url): return url
        case .data: return nil
        case .resource(let name):
            let file = (name as NSString).pathExtension.isEmpty ? "\(name).json" : name
            let local = workingDirectory.appendingPathComponent(file)
            if FileManager.default.fileExists(atPath: local.path) { return local }
            if let bundled = Bundle.main.resourceURL?.appendingPathComponent(file), FileManager.default.fileExists(atPath: bundled.path) {
                return bundled
            }
            return local
        }
    }

    /// Reads the file (or the data) and decodes it: amplify-swift's resolver, as a closure.
    /// Calling it throws ``ConfigurationError/invalidAmplifyOutputsFile(_:_:_:)`` for a missing
    /// or unreadable file, and ``ConfigurationError/unableToDecode(_:_:_:)`` for contents that
    /// do not decode (as amplify-swift).
    public var resolveConfiguration: @Sendable () throws -> AmplifyOutputsData {
        { [self] in
            if case .data(let data) = source { return try AmplifyOutputsData(data: data) }
            guard let url else {
                throw ConfigurationError.invalidAmplifyOutputsFile("No amplify_outputs.json was given.", "Pass a file or its data.")
            }
            return try AmplifyOutputsData(data: Data(ConfigurationFileReader.read(url, kind: .gen2)))
        }
    }

    /// Reads and translates the file into the category shape plugins receive.
    /// - Throws: ``ConfigurationError/invalidAmplifyOutputsFile(_:_:_:)`` for a missing or
    ///   unreadable file, ``ConfigurationError/unableToDecode(_:_:_:)`` for contents that do not
    ///   decode.
    public func resolve() throws -> AmplifyConfiguration {
        if case .data(let data) = source {
            return try ConfigurationDocument.configuration(from: [UInt8](data), file: nil, requireGen2: true)
        }
        guard let url else { throw ConfigurationError.invalidAmplifyOutputsFile("No amplify_outputs.json was given.", "Pass a file or its data.") }
        return try ConfigurationDocument.configuration(from: ConfigurationFileReader.read(url, kind: .gen2), file: url, requireGen2: true)
    }
}
