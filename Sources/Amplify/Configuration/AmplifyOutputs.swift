import Foundation

/// Where a Gen 2 `amplify_outputs.json` comes from, for `Amplify.configure(with:)`.
public struct AmplifyOutputs: Sendable {
    enum Source: Sendable {
        case defaultFile
        case data(Data)
        case file(URL)
    }

    let source: Source

    /// `amplify_outputs.json` in the working directory (amplify-swift reads it from the app
    /// bundle; a server has none).
    public static let amplifyOutputs = AmplifyOutputs(source: .defaultFile)

    /// The contents of an `amplify_outputs.json`.
    public static func data(_ data: Data) -> AmplifyOutputs { AmplifyOutputs(source: .data(data)) }

    /// An `amplify_outputs.json` at `url`.
    public static func file(_ url: URL) -> AmplifyOutputs { AmplifyOutputs(source: .file(url)) }

    /// Reads and translates the file into the category shape plugins receive.
    /// - Throws: ``ConfigurationError/invalidAmplifyOutputsFile(_:_:_:)``.
    public func resolve() throws -> AmplifyConfiguration {
        switch source {
        case .defaultFile:
            let url = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("amplify_outputs.json")
            return try ConfigurationDocument.configuration(from: ConfigurationFileReader.read(url, kind: .gen2), file: url, requireGen2: true)
        case .file(let url):
            return try ConfigurationDocument.configuration(from: ConfigurationFileReader.read(url, kind: .gen2), file: url, requireGen2: true)
        case .data(let data):
            return try ConfigurationDocument.configuration(from: [UInt8](data), file: nil, requireGen2: true)
        }
    }
}

