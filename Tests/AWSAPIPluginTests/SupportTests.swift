import AWSPluginsCore
import Amplify
import Foundation
import Testing

@testable import AWSAPIPlugin

/// The plugin's small parts on their own: the reconnect backoff, variables as JSON, REST URLs,
/// and the real-time authorization objects of each mode.
@Suite("API plugin support")
struct SupportTests {
    @Test("the backoff before attempt n is full jitter below base·2^(n-1), capped at the maximum")
    func backoff() {
        let policy = RealtimeReconnectPolicy(maximumAttempts: nil, baseDelay: .milliseconds(100), maximumDelay: .seconds(2))
        #expect(policy.delay(beforeAttempt: 1, random: 1) == .milliseconds(100))
        #expect(policy.delay(beforeAttempt: 3, random: 1) == .milliseconds(400))
        #expect(policy.delay(beforeAttempt: 3, random: 0.5) == .milliseconds(200))
        #expect(policy.delay(beforeAttempt: 10, random: 1) == .seconds(2))
        #expect(policy.delay(beforeAttempt: 1000, random: 1) == .seconds(2))
        #expect(policy.delay(beforeAttempt: 4, random: 0) == .zero)
    }

    @Test("variables of every Sendable JSON-like kind become JSON; an unencodable one is an operationError naming it")
    func variables() throws {
        struct Point: Encodable, Sendable {
            let x: Int
            let y: Double
        }
        let nothing: String? = nil
        let request = GraphQLRequest<JSONValue>(
            document: "q",
            variables: [
                "text": "a", "int": 3, "double": 1.5, "flag": true, "list": [1, 2], "nested": ["k": ["v": false]],
                "json": JSONValue.object(["a": .null]), "point": Point(x: 1, y: 2.5), "none": nothing, "null": NSNull(),
            ], responseType: JSONValue.self)
        let json = try #require(try request.variablesJSON())
        #expect(
            json == [
                "text": "a", "int": 3, "double": 1.5, "flag": true, "list": [1, 2], "nested": ["k": ["v": false]],
                "json": ["a": .null], "point": ["x": 1, "y": 2.5], "none": .null, "null": .null,
            ])
        struct Opaque: Sendable {}
        let bad = GraphQLRequest<JSONValue>(document: "q", variables: ["thing": Opaque()], responseType: JSONValue.self)
        let error = #expect(throws: APIError.self) { try bad.variablesJSON() }
        #expect(error?.errorDescription == "The GraphQL variable `thing` (Opaque) cannot be sent as JSON.")
    }

    @Test(
        "the variables written straight into a body are the JSON of variablesJSON(), for every kind; an unencodable one is an operationError naming it"
    )
    func variablesWrittenStraight() throws {
        struct Point: Encodable, Sendable {
            let x: Int
            let y: Double
        }
        let nothing: Int? = nil
        let some: Int? = 7
        let request = GraphQLRequest<JSONValue>(
            document: "q",
            variables: [
                "text": "a \"quoted\" \\ line\nbreak \u{1} é", "int": -3, "big": 1_000_000_000_000_000, "huge": Int.max, "double": 1.5,
                "flag": false, "list": [1, 2], "nested": ["k": ["v": false]], "json": JSONValue.object(["a": .null]),
                "point": Point(x: 1, y: 2.5), "none": nothing, "some": some, "null": NSNull(), "key \"odd\"": true,
            ], responseType: JSONValue.self)
        var bytes: [UInt8] = []
        #expect(try request.writeVariablesJSON(into: &bytes))
        let written = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        #expect(written == (try request.variablesJSON()))
        #expect(written["big"] == .number(1e15) && written["huge"] == .number(Double(Int.max)) && written["some"] == 7)

        var none: [UInt8] = []
        #expect(try !GraphQLRequest<JSONValue>(document: "q", responseType: JSONValue.self).writeVariablesJSON(into: &none))
        #expect(none.isEmpty)
        struct Opaque: Sendable {}
        let bad = GraphQLRequest<JSONValue>(document: "q", variables: ["thing": Opaque()], responseType: JSONValue.self)
        let error = #expect(throws: APIError.self) { try bad.writeVariablesJSON(into: &none) }
        #expect(error?.errorDescription == "The GraphQL variable `thing` (Opaque) cannot be sent as JSON.")
    }

    @Test("REST URLs: the stage path is kept, the request path and query are encoded once")
    func restURLs() throws {
        let endpoint = try #require(URL(string: "https://abc.execute-api.us-east-1.amazonaws.com/dev/"))
        #expect(
            try RESTURL.make(endpoint: endpoint, path: "items/a b", query: ["q": "x&y=z", "a": "1"]).absoluteString
                == "https://abc.execute-api.us-east-1.amazonaws.com/dev/items/a%20b?a=1&q=x%26y%3Dz")
        #expect(try RESTURL.make(endpoint: endpoint, path: nil, query: nil).absoluteString == "https://abc.execute-api.us-east-1.amazonaws.com/dev/")
    }

    @Test("the real-time authorization object: {host, x-api-key}, {host, Authorization}, or the SigV4 headers of the POST")
    func realtimeHeaders() {
        let host = "abc.appsync-api.us-east-1.amazonaws.com"
        #expect(
            PreparedAuthorization(mode: .apiKey, material: .apiKey("da2-k"), service: "appsync").realtimeHeaders(
                host: host, path: "/graphql/connect", body: Array("{}".utf8))
                == ["host": host, "x-api-key": "da2-k"])
        #expect(
            PreparedAuthorization(mode: .openIDConnect, material: .token("t"), service: "appsync").realtimeHeaders(
                host: host, path: "/graphql", body: [])
                == ["host": host, "Authorization": "t"])
        let iam = PreparedAuthorization(
            mode: .awsIAM, material: .iam(AWSCredentials(accessKeyId: "AKID", secretAccessKey: "s", sessionToken: "tok"), region: "us-east-1"),
            service: "appsync"
        )
        .realtimeHeaders(host: host, path: "/graphql/connect", body: Array("{}".utf8))
        #expect(Set(iam.keys) == ["accept", "content-encoding", "content-type", "host", "X-Amz-Date", "X-Amz-Security-Token", "Authorization"])
        #expect(iam["Authorization"]?.hasPrefix("AWS4-HMAC-SHA256 Credential=AKID/") == true)
        #expect(
            iam["Authorization"]?.contains(
                "/us-east-1/appsync/aws4_request, SignedHeaders=accept;content-encoding;content-type;host;x-amz-date;x-amz-security-token, Signature="
            ) == true)
    }
}
