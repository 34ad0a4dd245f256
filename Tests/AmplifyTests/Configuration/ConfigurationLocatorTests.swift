import Amplify
import Foundation
import Testing

@Suite("Finding the configuration file")
struct ConfigurationLocatorTests {
    private let gen1 = #"{"auth": {"plugins": {"gen1Plugin": {}}}}"#
    private let gen2 = #"{"version": "1.3", "auth": {"aws_region": "r", "user_pool_id": "gen2pool", "user_pool_client_id": "c"}}"#
    private let legacy = #"{"CognitoUserPool": {"Default": {"PoolId": "legacypool"}}}"#

    private func authKeys(_ configuration: AmplifyConfiguration) -> [String] {
        configuration.auth?.plugins.keys.sorted() ?? []
    }

    @Test("amplifyconfiguration.json wins over amplify_outputs.json and awsconfiguration.json")
    func gen1First() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanUp() }
        try folder.write("amplifyconfiguration.json", gen1)
        try folder.write("amplify_outputs.json", gen2)
        try folder.write("awsconfiguration.json", legacy)
        let configuration = try ConfigurationLocator.loadDefault(environment: [:], directory: folder.url)
        #expect(authKeys(configuration) == ["gen1Plugin"])
    }

    @Test("amplify_outputs.json is next, then awsconfiguration.json")
    func fallbacks() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanUp() }
        try folder.write("awsconfiguration.json", legacy)
        #expect(
            try ConfigurationLocator.loadDefault(environment: [:], directory: folder.url)
                .auth?.plugins["awsCognitoAuthPlugin"]?.value(at: "CognitoUserPool.Default.PoolId") == "legacypool")
        try folder.write("amplify_outputs.json", gen2)
        #expect(
            try ConfigurationLocator.loadDefault(environment: [:], directory: folder.url)
                .auth?.plugins["awsCognitoAuthPlugin"]?.value(at: "CognitoUserPool.Default.PoolId") == "gen2pool")
    }

    @Test("$AMPLIFY_CONFIG names the file, relative to the working directory, and wins over the rest")
    func environmentVariableWins() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanUp() }
        try folder.write("amplifyconfiguration.json", gen1)
        try folder.write("custom.json", #"{"auth": {"plugins": {"fromEnvironment": {}}}}"#)
        let configuration = try ConfigurationLocator.loadDefault(environment: ["AMPLIFY_CONFIG": "custom.json"], directory: folder.url)
        #expect(authKeys(configuration) == ["fromEnvironment"])
        #expect(configuration.baseDirectory?.standardizedFileURL.path == folder.url.standardizedFileURL.path)
    }

    @Test("a $AMPLIFY_CONFIG file that holds Gen 2 outputs is read as Gen 2 whatever its name")
    func environmentGen2ByContent() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanUp() }
        let file = try folder.write("outputs-prod.json", gen2)
        let configuration = try ConfigurationLocator.loadDefault(environment: ["AMPLIFY_CONFIG": file.path], directory: folder.url)
        #expect(authKeys(configuration) == ["awsCognitoAuthPlugin"])
    }

    @Test("with no file anywhere the error lists where it looked")
    func nothingFound() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanUp() }
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLocator.loadDefault(environment: [:], directory: folder.url)
        }
        #expect(
            error?.errorDescription
                == "No configuration file found: $AMPLIFY_CONFIG is not set and none of amplifyconfiguration.json, amplify_outputs.json, awsconfiguration.json is in \(folder.url.path)."
        )
        #expect(error?.recoverySuggestion.contains("--config") == true)
    }
}
