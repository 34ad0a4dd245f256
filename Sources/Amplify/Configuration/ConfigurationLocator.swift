import Foundation

/// Finds the configuration file when `Amplify.configure()` is called without one:
/// `$AMPLIFY_CONFIG`, then `amplifyconfiguration.json`, `amplify_outputs.json` and
/// `awsconfiguration.json` in the working directory.
public enum ConfigurationLocator {
    /// The environment variable that names a configuration file explicitly.
    public static let environmentVariable = "AMPLIFY_CONFIG"

    /// The file names looked for in the working directory, in order.
    public static let fileNames = ["amplifyconfiguration.json", "amplify_outputs.json", "awsconfiguration.json"]

    /// Finds and loads the default configuration (read as
    /// ``AmplifyConfiguration/init(configurationFile:)`` reads a file).
    /// - Throws: ``ConfigurationError/invalidAmplifyConfigurationFile(_:_:_:)`` listing where it
    ///   looked when no file exists, or the file's own error.
    public static func loadDefault(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        directory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    ) throws -> AmplifyConfiguration {
        if let explicit = environment[environmentVariable], !explicit.isEmpty {
            let url = explicit.hasPrefix("/") ? URL(fileURLWithPath: explicit) : directory.appendingPathComponent(explicit)
            return try ConfigurationDocument.load(url.standardizedFileURL)
        }
        for name in fileNames {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: candidate.path) { return try ConfigurationDocument.load(candidate) }
        }
        throw ConfigurationError.invalidAmplifyConfigurationFile(
            "No configuration file found: $\(environmentVariable) is not set and none of \(fileNames.joined(separator: ", ")) is in \(directory.path).",
            "Pass the file explicitly (Amplify.configure(AmplifyConfiguration(configurationFile: url)) or `amplify --config PATH`), set $\(environmentVariable), or copy the file the Amplify CLI wrote into the working directory."
        )
    }
}
