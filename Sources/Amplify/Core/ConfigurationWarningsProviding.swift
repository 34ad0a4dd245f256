/// A plugin that can say, after `configure(using:)`, what in its block it accepted but expects
/// not to work as written. `Amplify.configure()` turns each warning into a
/// ``ConfigurationFinding`` of kind ``ConfigurationFinding/Kind/suspiciousValue`` (logged at
/// `warn`, dispatched on the Hub's `.logging` channel, kept in `Amplify.configurationFindings`,
/// and printed by `amplify config check`), and configures the rest.
public protocol ConfigurationWarningsProviding {
    /// What the last `configure(using:)` found.
    var configurationWarnings: [ConfigurationWarning] { get }
}

/// A value a plugin accepted but expects not to work as written.
public struct ConfigurationWarning: Sendable, Equatable {
    /// The key inside the plugin's block (`CognitoUserPool.Default.Region`).
    public var path: String
    /// What is wrong with it, in a sentence that does not name the key.
    public var message: String
    /// What to do about it.
    public var suggestion: String

    /// A warning about the value at `path`.
    public init(path: String, message: String, suggestion: String) {
        self.path = path
        self.message = message
        self.suggestion = suggestion
    }
}
