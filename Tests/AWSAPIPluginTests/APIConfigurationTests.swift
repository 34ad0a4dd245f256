import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

/// The plugin's block as every configuration shape writes it, and the errors for a bad one.
@Suite("API configuration")
struct APIConfigurationTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Configurations")

    private func plugin(_ file: String, on loop: EventLoop) throws -> AWSAPIPlugin {
        let configuration = try AmplifyConfiguration(configurationFile: Self.fixtures.appendingPathComponent(file))
        let plugin = AWSAPIPlugin(loop: loop)
        try plugin.configure(using: configuration.api?.plugins["awsAPIPlugin"])
        return plugin
    }

    @Test("Gen 1 (GraphQL and REST by name), awsconfiguration.json, Gen 2's data, and Amplify JS flat and v6 all configure")
    func everyShapeConfigures() async throws {
        let loop = try EventLoop(name: "api-config-test")
        func plugin(_ file: String) throws -> AWSAPIPlugin { try self.plugin(file, on: loop) }
        let gen1 = try plugin("gen1-ios-full.json")
        #expect(gen1.endpoints.keys.sorted() == ["AdminQueries", "notesapp"])
        #expect(gen1.endpoints["notesapp"]?.authorizationType == .apiKey)
        #expect(gen1.endpoints["AdminQueries"]?.endpointType == .rest)
        #expect(
            gen1.endpoints["notesapp"]?.realtimeEndpoint?.absoluteString
                == "wss://abcdefghijklmnopqrstuvwxyz.appsync-realtime-api.us-east-1.amazonaws.com/graphql")
        let gen2 = try plugin("amplify_outputs-v1.4.json")
        #expect(gen2.endpoints["data"]?.authorizationTypes == [.amazonCognitoUserPools, .awsIAM])
        let flat = try plugin("aws-exports.json")
        #expect(flat.endpoints["data"]?.additionalAuthorizationTypes == [.apiKey, .awsIAM])
        #expect(flat.endpoints["ordersApi"]?.region == "us-west-2")
        let guest = try plugin("awsconfiguration-guest.json")
        #expect(guest.endpoints["Default"]?.authorizationType == .awsIAM)
        let resources = try plugin("js-v6-resources.json")
        #expect(resources.endpoints["payments"]?.endpointType == .rest)
        for plugin in [gen1, gen2, flat, guest, resources] { await plugin.reset() }
        try loop.shutdown()
    }

    @Test("a custom domain's real-time endpoint appends /realtime; http becomes ws; the region is read from an AWS host")
    func derivedEndpoints() async throws {
        let custom = APIEndpointConfiguration(
            name: "c", endpointType: .graphQL, endpoint: try #require(URL(string: "https://api.example.com/graphql")), region: "eu-west-1",
            authorizationType: .apiKey)
        #expect(custom.realtimeEndpoint?.absoluteString == "wss://api.example.com/graphql/realtime")
        let local = APIEndpointConfiguration(
            name: "l", endpointType: .graphQL, endpoint: try #require(URL(string: "http://127.0.0.1:4000/graphql")), region: nil,
            authorizationType: .apiKey)
        #expect(local.realtimeEndpoint?.absoluteString == "ws://127.0.0.1:4000/graphql/realtime")
        let loop = try EventLoop(name: "api-config-test")
        let plugin = AWSAPIPlugin(loop: loop)
        try plugin.configure(
            using: [
                "x": [
                    "endpointType": "GraphQL", "endpoint": "https://x1.appsync-api.ap-south-1.amazonaws.com/graphql", "authorizationType": "AWS_IAM",
                ]
            ] as JSONValue)
        #expect(plugin.endpoints["x"]?.region == "ap-south-1")
        await plugin.reset()
        try loop.shutdown()
    }

    @Test("a bad value names its key inside the block, so Amplify.configure reports the full path")
    func badValuesNameTheirKey() throws {
        func failure(_ block: JSONValue) -> ConfigurationValueError? {
            do {
                try AWSAPIPlugin().configure(using: block)
                return nil
            } catch {
                return error as? ConfigurationValueError
            }
        }
        let base: [String: JSONValue] = [
            "endpointType": "GraphQL", "endpoint": "https://a.example.com/graphql", "region": "us-east-1", "authorizationType": "API_KEY",
            "apiKey": "k",
        ]
        var noEndpoint = base
        noEndpoint["endpoint"] = nil
        #expect(failure(["my api": .object(noEndpoint)])?.keyPath == "my api.endpoint")
        var badMode = base
        badMode["authorizationType"] = "PASSWORD"
        let mode = failure(["my api": .object(badMode)])
        #expect(mode?.keyPath == "my api.authorizationType")
        #expect(mode?.expected == "one of NONE, API_KEY, AWS_IAM, OPENID_CONNECT, AMAZON_COGNITO_USER_POOLS, AWS_LAMBDA")
        var noKey = base
        noKey["apiKey"] = nil
        #expect(failure(["my api": .object(noKey)])?.keyPath == "my api.apiKey")
        var badType = base
        badType["endpointType"] = "SOAP"
        #expect(failure(["my api": .object(badType)])?.keyPath == "my api.endpointType")
        var badURL = base
        badURL["endpoint"] = "ftp://x"
        #expect(failure(["my api": .object(badURL)])?.keyPath == "my api.endpoint")
        var iamNoRegion = base
        iamNoRegion["region"] = nil
        iamNoRegion["additionalAuthorizationTypes"] = ["AWS_IAM"]
        #expect(failure(["my api": .object(iamNoRegion)])?.keyPath == "my api.region")
        var badExtra = base
        badExtra["additionalAuthorizationTypes"] = ["API_KEY", 7]
        #expect(failure(["my api": .object(badExtra)])?.keyPath == "my api.additionalAuthorizationTypes[1]")
        #expect(throws: PluginError.self) { try AWSAPIPlugin().configure(using: nil) }
    }
}
