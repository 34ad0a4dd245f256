import Amplify
import Foundation
import Testing

@Suite("Configuration files")
struct ConfigurationFileTests {
    @Test("the Gen 1 file the CLI writes loads with every plugin block intact")
    func gen1Sample() throws {
        let configuration = try AmplifyConfiguration(configurationFile: Samples.url("amplifyconfiguration.json"))
        let cognito = try #require(configuration.auth?.plugins["awsCognitoAuthPlugin"])
        #expect(cognito.value(at: "CognitoUserPool.Default.PoolId") == "us-east-1_AbCdEfGhI")
        #expect(cognito.value(at: "CredentialsProvider.CognitoIdentity.Default.Region") == "us-east-1")
        #expect(configuration.storage?.plugins["awsS3StoragePlugin"]?["bucket"] == "myapp-storage-dev")
        #expect(configuration.analytics?.plugins["awsPinpointAnalyticsPlugin"]?.value(at: "pinpointAnalytics.appId") == "0123456789abcdef")
        #expect(configuration.hub == nil)
        #expect(configuration.baseDirectory?.standardizedFileURL == Samples.folder.standardizedFileURL)
    }

    @Test("the optional Gen 1 keys (secret, endpoint, OAuth) are passed through to the plugin")
    func gen1OptionalKeys() throws {
        let configuration = try AmplifyConfiguration(configurationFile: Samples.url("amplifyconfiguration-oauth-secret.json"))
        let cognito = try #require(configuration.auth?.plugins["awsCognitoAuthPlugin"])
        #expect(try cognito.requiredString("CognitoUserPool.Default.Endpoint") == "http://127.0.0.1:5000")
        #expect(try cognito.optionalString("CognitoUserPool.Default.AppClientSecret")?.isEmpty == false)
        #expect(cognito.value(at: "Auth.Default.OAuth.Scopes")?.asArray?.count == 5)
    }

    @Test("a Gen 2 amplify_outputs.json becomes the Cognito and S3 plugin blocks")
    func gen2Sample() throws {
        let configuration = try AmplifyConfiguration(configurationFile: Samples.url("amplify_outputs.json"))
        let cognito = try #require(configuration.auth?.plugins["awsCognitoAuthPlugin"])
        #expect(cognito.value(at: "CognitoUserPool.Default.PoolId") == "us-west-2_Gen2Pool1")
        #expect(cognito.value(at: "CognitoUserPool.Default.AppClientId") == "gen2client0123456789abcd")
        #expect(cognito.value(at: "CognitoUserPool.Default.Region") == "us-west-2")
        #expect(cognito.value(at: "CredentialsProvider.CognitoIdentity.Default.PoolId") == "us-west-2:11111111-2222-3333-4444-555555555555")
        #expect(cognito.value(at: "AmplifyOutputs.password_policy.min_length") == 8)
        let s3 = try #require(configuration.storage?.plugins["awsS3StoragePlugin"])
        #expect(s3["bucket"] == "amplify-gen2-storage-bucket")
        #expect(s3["region"] == "us-west-2")
    }

    @Test("awsconfiguration.json is read as the auth and storage blocks it stands for")
    func awsConfiguration() throws {
        let configuration = try AmplifyConfiguration(configurationFile: Samples.url("awsconfiguration.json"))
        #expect(configuration.auth?.plugins["awsCognitoAuthPlugin"]?.value(at: "CognitoUserPool.Default.PoolId") == "ap-southeast-2_LegacyPl1")
        #expect(configuration.storage?.plugins["awsS3StoragePlugin"]?["bucket"] == "legacy-transfer-bucket")
        #expect(configuration.storage?.plugins["awsS3StoragePlugin"]?["region"] == "ap-southeast-2")
    }

    @Test("a configuration survives an encode and decode round trip")
    func codableRoundTrip() throws {
        let original = try AmplifyConfiguration(configurationFile: Samples.url("amplifyconfiguration.json"))
        let decoded = try JSONDecoder().decode(AmplifyConfiguration.self, from: JSONEncoder().encode(original))
        #expect(decoded.auth == original.auth)
        #expect(decoded.storage == original.storage)
        #expect(decoded.analytics == original.analytics)
    }

    // MARK: Bad input, one case at a time

    private func loadError(_ text: String?, name: String = "amplifyconfiguration.json") throws -> (ConfigurationError, String) {
        let folder = try TemporaryFolder()
        defer { folder.cleanUp() }
        let file = folder.url.appendingPathComponent(name)
        if let text { try Data(text.utf8).write(to: file) }
        do {
            _ = try AmplifyConfiguration(configurationFile: file)
        } catch let error as ConfigurationError {
            return (error, file.path)
        }
        Issue.record("loading \(text ?? "<missing>") did not fail")
        throw CancellationError()
    }

    @Test("a missing file names the path and says how to get one")
    func missingFile() throws {
        let (error, path) = try loadError(nil)
        guard case .invalidAmplifyConfigurationFile = error else {
            Issue.record("wrong case \(error)")
            return
        }
        #expect(error.errorDescription == "Configuration file not found: \(path).")
        #expect(error.recoverySuggestion.contains("amplify pull"))
    }

    @Test("a file that is not JSON at all is rejected with the position")
    func notJSON() throws {
        let (error, path) = try loadError("auth = cognito\n")
        #expect(error.errorDescription.hasPrefix("\(path) is not valid JSON: "))
        #expect(error.errorDescription.contains("line 1, column 1"))
    }

    @Test("a JSON syntax error reports its line and column")
    func syntaxErrorPosition() throws {
        let (error, _) = try loadError("{\n  \"auth\": {\n    \"plugins\": x\n  }\n}\n")
        #expect(error.errorDescription.contains("(line 3, column 16)"))
    }

    @Test("an empty file is rejected as empty")
    func emptyFile() throws {
        let (error, path) = try loadError("  \n")
        #expect(error.errorDescription == "\(path) is empty.")
    }

    @Test("a top level that is not an object is rejected")
    func topLevelArray() throws {
        let (error, path) = try loadError("[1, 2]")
        #expect(error.errorDescription == "The configuration in \(path) is an array, but it must be a JSON object with one block per category.")
    }

    @Test("a category block that is not an object names the category")
    func categoryNotObject() throws {
        let (error, path) = try loadError(#"{"auth": "cognito"}"#)
        #expect(error.errorDescription == "`auth` in \(path) is a string, but a category block must be an object.")
    }

    @Test("a category block without a plugins object says so")
    func pluginsMissing() throws {
        let (error, path) = try loadError(#"{"storage": {"bucket": "b"}}"#)
        #expect(error.errorDescription == "`storage` in \(path) has no `plugins` object.")
        let (typed, _) = try loadError(#"{"storage": {"plugins": ["awsS3StoragePlugin"]}}"#)
        #expect(typed.errorDescription.hasPrefix("`storage.plugins` in "))
        #expect(typed.errorDescription.hasSuffix("is an array, but it must be an object keyed by plugin name."))
    }

    @Test("a plugin block of the wrong type names its JSON path")
    func pluginBlockWrongType() throws {
        let (error, path) = try loadError(#"{"auth": {"plugins": {"awsCognitoAuthPlugin": "us-east-1_x"}}}"#)
        #expect(error.errorDescription == "`auth.plugins.awsCognitoAuthPlugin` in \(path) is a string, but a plugin block must be an object.")
    }

    @Test("a Gen 2 file missing a required key names the key")
    func gen2MissingKey() throws {
        let (error, path) = try loadError(
            #"{"version": "1.3", "auth": {"aws_region": "us-east-1", "user_pool_client_id": "c"}}"#, name: "amplify_outputs.json")
        guard case .unableToDecode = error else {
            Issue.record("wrong case \(error)")
            return
        }
        #expect(error.errorDescription == "`auth.user_pool_id` in \(path) is missing; a non-empty string is required.")
    }

    @Test("a Gen 2 file without a version is not taken for one")
    func gen2WithoutVersion() throws {
        let (error, _) = try loadError(#"{"auth": {"user_pool_id": "p"}}"#, name: "amplify_outputs.json")
        #expect(error.errorDescription.contains("has no string `version`"))
    }
}
