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
            return try AmplifyOutputsTranslator.load(url)
        case .file(let url):
            return try AmplifyOutputsTranslator.load(url)
        case .data(let data):
            let json = try ConfigurationFileReader.parse(data, file: nil, kind: .gen2)
            return try AmplifyOutputsTranslator.translate(json, file: nil)
        }
    }
}

/// Translates a Gen 2 `amplify_outputs.json` (snake_case sections) into the Gen 1 category shape,
/// so each plugin reads one shape:
/// - `auth` becomes an `awsCognitoAuthPlugin` block (`CognitoUserPool.Default`,
///   `CredentialsProvider.CognitoIdentity.Default`, `Auth.Default`), with the original section
///   kept under `AmplifyOutputs`;
/// - `storage` becomes an `awsS3StoragePlugin` block (`bucket`, `region`, and `buckets`);
/// - `analytics.amazon_pinpoint` becomes an `awsPinpointAnalyticsPlugin` block;
/// - a section that already has a `plugins` object (this package's extension, for the embedded
///   local plugins) is taken as it is.
enum AmplifyOutputsTranslator {
    static func load(_ url: URL) throws -> AmplifyConfiguration {
        let data = try ConfigurationFileReader.read(url, kind: .gen2)
        let json = try ConfigurationFileReader.parse(data, file: url, kind: .gen2)
        var configuration = try translate(json, file: url)
        configuration.baseDirectory = url.deletingLastPathComponent()
        configuration.sourceFile = url
        return configuration
    }

    static func translate(_ json: JSONValue, file: URL?) throws -> AmplifyConfiguration {
        let name = file?.path ?? "amplify_outputs data"
        guard let top = json.asObject else {
            throw invalid("\(name) is \(json.typeDescription), but amplify_outputs.json is a JSON object.",
                          "Regenerate it with `npx ampx generate outputs`.")
        }
        guard top["version"]?.stringValue != nil else {
            throw invalid("\(name) has no string `version`, so it is not an amplify_outputs.json.",
                          "Regenerate it with `npx ampx generate outputs`, or pass a Gen 1 amplifyconfiguration.json to Amplify.configure(_:) instead.")
        }
        var categories: [String: JSONValue] = [:]
        for (key, section) in top where key != "version" && key != "$schema" {
            if section["plugins"] != nil {
                categories[key] = section
                continue
            }
            switch key {
            case "auth": categories["auth"] = ["plugins": ["awsCognitoAuthPlugin": try auth(section, name: name)]]
            case "storage": categories["storage"] = ["plugins": ["awsS3StoragePlugin": try storage(section, name: name)]]
            case "analytics": if let analytics = try analytics(section, name: name) { categories["analytics"] = analytics }
            default: categories[key] = section
            }
        }
        do {
            return try AmplifyConfiguration(validating: .object(categories), file: file)
        } catch let error as ConfigurationError {
            throw invalid(error.errorDescription, error.recoverySuggestion, error)
        }
    }

    private static func auth(_ section: JSONValue, name: String) throws -> JSONValue {
        let region = try string(section, "aws_region", in: "auth", name: name)
        let poolId = try string(section, "user_pool_id", in: "auth", name: name)
        let clientId = try string(section, "user_pool_client_id", in: "auth", name: name)
        var block: [String: JSONValue] = [
            "CognitoUserPool": ["Default": ["PoolId": .string(poolId), "AppClientId": .string(clientId), "Region": .string(region)]],
            "Auth": ["Default": ["authenticationFlowType": "USER_SRP_AUTH"]],
            "AmplifyOutputs": section,
        ]
        if let identityPool = section["identity_pool_id"]?.stringValue {
            block["CredentialsProvider"] = ["CognitoIdentity": ["Default": ["PoolId": .string(identityPool), "Region": .string(region)]]]
        }
        return .object(block)
    }

    private static func storage(_ section: JSONValue, name: String) throws -> JSONValue {
        let region = try string(section, "aws_region", in: "storage", name: name)
        let bucket = try string(section, "bucket_name", in: "storage", name: name)
        var block: [String: JSONValue] = ["bucket": .string(bucket), "region": .string(region)]
        if let buckets = section["buckets"] { block["buckets"] = buckets }
        return .object(block)
    }

    private static func analytics(_ section: JSONValue, name: String) throws -> JSONValue? {
        guard let pinpoint = section["amazon_pinpoint"] else { return nil }
        let region = try string(pinpoint, "aws_region", in: "analytics.amazon_pinpoint", name: name)
        let appId = try string(pinpoint, "app_id", in: "analytics.amazon_pinpoint", name: name)
        return ["plugins": ["awsPinpointAnalyticsPlugin": [
            "pinpointAnalytics": ["appId": .string(appId), "region": .string(region)],
        ]]]
    }

    private static func string(_ section: JSONValue, _ key: String, in path: String, name: String) throws -> String {
        guard section.asObject != nil else {
            throw invalid("`\(path)` in \(name) is \(section.typeDescription), but it must be an object.",
                          "Regenerate the file with `npx ampx generate outputs`.")
        }
        guard let value = section[key]?.stringValue, !value.isEmpty else {
            let found = section[key].map { "is \($0.typeDescription)" } ?? "is missing"
            throw invalid("`\(path).\(key)` in \(name) \(found); a non-empty string is required.",
                          "Regenerate the file with `npx ampx generate outputs`, or add `\(key)` to the `\(path)` section.")
        }
        return value
    }

    private static func invalid(_ description: String, _ suggestion: String, _ underlying: (any Error)? = nil) -> ConfigurationError {
        .invalidAmplifyOutputsFile(description, suggestion, underlying)
    }
}
