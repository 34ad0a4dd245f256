/// The shape a configuration file was written in, recognised by its content (not its name).
public struct ConfigurationFormat: Sendable, Equatable, CustomStringConvertible {
    /// The shapes this package reads.
    public enum Shape: String, Sendable, Equatable {
        /// Gen 1 `amplifyconfiguration.json` as the Amplify CLI writes it for Swift, Android and
        /// Flutter: `{"auth": {"plugins": {...}}, ...}`.
        case gen1
        /// The CLI's `awsconfiguration.json`: `CognitoUserPool`, `CredentialsProvider`,
        /// `S3TransferUtility`, ... at the top level.
        case awsConfiguration
        /// A Gen 2 `amplify_outputs.json`.
        case gen2
        /// Amplify JS's flat file (`aws-exports.js`'s object, or the JS `amplifyconfiguration.json`):
        /// `aws_user_pools_id`, `aws_user_files_s3_bucket`, `aws_appsync_graphqlEndpoint`, ...; also
        /// Amplify JS v5's category objects (`Auth: {userPoolId, ...}`), alone or beside those keys.
        case amplifyJSFlat
        /// Amplify JS v6's resources object: `{"Auth": {"Cognito": {...}}, "Storage": {"S3": {...}}, "API": {...}}`.
        case amplifyJSResources
    }

    /// The shape.
    public var shape: Shape
    /// A Gen 2 file's `version` ("1.3"); `nil` for the other shapes.
    public var version: String?

    /// A Gen 1 `amplifyconfiguration.json`.
    public static let gen1 = ConfigurationFormat(shape: .gen1)
    /// An `awsconfiguration.json`.
    public static let awsConfiguration = ConfigurationFormat(shape: .awsConfiguration)
    /// Amplify JS's flat file.
    public static let amplifyJSFlat = ConfigurationFormat(shape: .amplifyJSFlat)
    /// Amplify JS v6's resources object.
    public static let amplifyJSResources = ConfigurationFormat(shape: .amplifyJSResources)
    /// A Gen 2 `amplify_outputs.json` of `version`.
    public static func gen2(version: String) -> ConfigurationFormat { ConfigurationFormat(shape: .gen2, version: version) }

    /// "Gen 2 amplify_outputs.json version 1.3".
    public var description: String {
        switch shape {
        case .gen1: "Gen 1 amplifyconfiguration.json"
        case .awsConfiguration: "awsconfiguration.json"
        case .gen2:
            version.map { $0.isEmpty ? "Gen 2 amplify_outputs.json" : "Gen 2 amplify_outputs.json version \($0)" } ?? "Gen 2 amplify_outputs.json"
        case .amplifyJSFlat: "Amplify JS configuration (aws-exports shape)"
        case .amplifyJSResources: "Amplify JS v6 resources configuration"
        }
    }

    var isGen2: Bool { shape == .gen2 }

    /// Recognises the shape of a parsed file. `named` is the file's name, if any: an object
    /// named `amplify_outputs.json` is a Gen 2 file whether or not it has its `version`.
    static func recognise(_ json: JSONValue, named name: String?) -> ConfigurationFormat {
        guard let top = json.asObject else { return .gen1 }
        if let version = top["version"]?.stringValue { return .gen2(version: version) }
        if name == "amplify_outputs.json" { return .gen2(version: "") }
        if AmplifyJSTranslator.looksLikeResources(top) { return .amplifyJSResources }
        if AmplifyJSTranslator.looksLikeFlat(top) || AmplifyJSTranslator.looksLikeV5(top) { return .amplifyJSFlat }
        if AWSConfigurationTranslator.looksLikeAWSConfiguration(top) { return .awsConfiguration }
        return .gen1
    }
}
