import AWSPluginsCore
import Amplify
import Foundation
import Testing

@testable import AWSAPIPlugin

/// The Events API read from each configuration shape, its real-time URL, and the channel and
/// publish rules checked before anything is sent.
@Suite("AppSync Events: configuration and rules")
struct EventsConfigurationTests {
    /// The plugin's block read from `text` written to a file named `name`.
    private func block(_ text: String, name: String) throws -> AWSAPIPluginConfiguration {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("events-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        let configuration = try AmplifyConfiguration(configurationFile: file)
        return try AWSAPIPluginConfiguration(json: try #require(configuration.api?.plugins["awsAPIPlugin"]))
    }

    @Test("Gen 2 custom.events becomes the Events API 'events' beside 'data', with its key and default mode")
    func gen2CustomEvents() throws {
        let file = """
            {"version": "1.4",
             "data": {"aws_region": "us-east-1", "url": "https://a.appsync-api.us-east-1.amazonaws.com/graphql", "default_authorization_type": "API_KEY", "api_key": "da2-data", "authorization_types": []},
             "custom": {"events": {"url": "https://e.appsync-api.eu-west-1.amazonaws.com/event", "aws_region": "eu-west-1", "default_authorization_type": "API_KEY", "api_key": "da2-events"}}}
            """
        let plugin = try block(file, name: "amplify_outputs.json")
        let events = try plugin.endpoint(named: nil, type: .events)
        #expect(events.name == "events")
        #expect(events.region == "eu-west-1")
        #expect(events.apiKey == "da2-events")
        #expect(events.authorizationType == .apiKey)
        #expect(events.realtimeEndpoint?.absoluteString == "wss://e.appsync-realtime-api.eu-west-1.amazonaws.com/event/realtime")
        #expect(try plugin.endpoint(named: nil, type: .graphQL).name == "data")
    }

    @Test("Amplify JS's API.Events becomes the Events API, its defaultAuthMode translated")
    func amplifyJSEvents() throws {
        let file = """
            {"API": {"Events": {"endpoint": "https://e.appsync-api.us-east-2.amazonaws.com/event", "region": "us-east-2", "defaultAuthMode": "iam"}}}
            """
        let events = try block(file, name: "amplify-config.json").endpoint(named: "events", type: .events)
        #expect(events.authorizationType == .awsIAM)
        #expect(events.region == "us-east-2")
    }

    @Test("a custom domain and a local stand-in keep their host and gain /realtime")
    func realtimeOfCustomDomain() {
        let custom = APIEndpointConfiguration(
            name: "e", endpointType: .events, endpoint: URL(string: "https://api.example.com/event") ?? URL(fileURLWithPath: "/"),
            region: "us-east-1",
            authorizationType: .apiKey, apiKey: "k")
        #expect(custom.realtimeEndpoint?.absoluteString == "wss://api.example.com/event/realtime")
        let graphQL = APIEndpointConfiguration(
            name: "g", endpointType: .graphQL,
            endpoint: URL(string: "https://a.appsync-api.us-east-1.amazonaws.com/graphql") ?? URL(fileURLWithPath: "/"),
            region: "us-east-1", authorizationType: .apiKey, apiKey: "k")
        #expect(graphQL.realtimeEndpoint?.absoluteString == "wss://a.appsync-realtime-api.us-east-1.amazonaws.com/graphql")
    }

    @Test("channel paths: five segments of A-Z a-z 0-9 -, a trailing wildcard only when subscribing, the leading / optional")
    func channelRules() throws {
        #expect(try EventsChannelPath.validated("default/a", wildcardAllowed: false) == "/default/a")
        #expect(try EventsChannelPath.validated("/default/a/b/c/d", wildcardAllowed: false) == "/default/a/b/c/d")
        #expect(try EventsChannelPath.validated("/default/a/*", wildcardAllowed: true) == "/default/a/*")
        let refused: [(String, Bool, String)] = [
            ("", true, "empty"), ("/default/a/b/c/d/e", true, "6 segments"), ("/default/a_b", false, "a_b"),
            ("/default/*", false, "wildcard"), ("/*/a", true, "namespace"), ("/default/*/a", true, "not its last"),
            ("/default//a", false, "empty segment"), ("/default/" + String(repeating: "a", count: 51), false, "51 characters"),
        ]
        for (path, wildcard, words) in refused {
            let error = #expect(throws: APIError.self, "\(path)") { try EventsChannelPath.validated(path, wildcardAllowed: wildcard) }
            #expect(error?.errorDescription.contains(words) == true, "\(path): \(error?.errorDescription ?? "")")
        }
    }

    @Test("publish limits: one to five events, each at most 240 KB of JSON, no NaN")
    func publishLimits() throws {
        #expect(try EventsPublishLimits.encoded([["a": 1], "b"]) == [#"{"a":1}"#, #""b""#])
        #expect(throws: APIError.self) { try EventsPublishLimits.encoded([]) }
        #expect(throws: APIError.self) { try EventsPublishLimits.encoded(Array(repeating: 1, count: 6)) }
        let atLimit = JSONValue.string(String(repeating: "x", count: 240 * 1024 - 2))
        #expect(try EventsPublishLimits.encoded([atLimit]).first?.utf8.count == 240 * 1024)
        let over = JSONValue.string(String(repeating: "x", count: 240 * 1024 - 1))
        #expect(throws: APIError.self) { try EventsPublishLimits.encoded([over]) }
        #expect(throws: APIError.self) { try EventsPublishLimits.encoded([.number(.nan)]) }
    }

    @Test("the bodies signed for IAM are Amplify JS's JSON.stringify: compact, channel first, / not escaped")
    func signedBodies() {
        #expect(EventsMessageBody.subscribe(channel: "/default/a") == #"{"channel":"/default/a"}"#)
        #expect(EventsMessageBody.publish(channel: "/d/a", events: [#"{"x":"y"}"#]) == #"{"channel":"/d/a","events":["{\"x\":\"y\"}"]}"#)
    }
}
