import Amplify
import Foundation
import Testing

@Suite("JSONValue")
struct JSONValueTests {
    private let sample: JSONValue = [
        "CognitoUserPool": ["Default": ["PoolId": "us-east-1_x", "Retries": 3, "Ratio": 0.5, "Strict": true]],
        "Scopes": ["email", "openid"],
        "Nothing": nil,
    ]

    @Test("literals build the matching cases and accessors read them back")
    func literalsAndAccessors() {
        #expect(sample.value(at: "CognitoUserPool.Default.PoolId")?.stringValue == "us-east-1_x")
        #expect(sample.value(at: "CognitoUserPool.Default.Retries")?.intValue == 3)
        #expect(sample.value(at: "CognitoUserPool.Default.Ratio")?.intValue == nil)
        #expect(sample.value(at: "CognitoUserPool.Default.Ratio")?.doubleValue == 0.5)
        #expect(sample.value(at: "CognitoUserPool.Default.Strict")?.booleanValue == true)
        #expect(sample["Scopes"]?[1] == "openid")
        #expect(sample["Scopes"]?[2] == nil)
        #expect(sample["Nothing"]?.isNull == true)
        #expect(sample.value(at: "CognitoUserPool.Missing.PoolId") == nil)
    }

    @Test("JSON text decodes to the same value it encodes from")
    func codableRoundTrip() throws {
        let data = try JSONEncoder().encode(sample)
        #expect(try JSONDecoder().decode(JSONValue.self, from: data) == sample)
        let text = #"{"a": [1, 2.5, "x", true, null, {"b": {}}]}"#
        #expect(
            try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
                == ["a": [1, 2.5, "x", true, nil, ["b": [:]]]])
    }

    @Test("required and optional readers say what was expected where")
    func readersExplain() throws {
        #expect(try sample.requiredString("CognitoUserPool.Default.PoolId") == "us-east-1_x")
        #expect(try sample.optionalInt("CognitoUserPool.Default.Retries") == 3)
        #expect(try sample.optionalString("Nothing") == nil)
        #expect(try sample.optionalBool("Absent") == nil)
        #expect(throws: ConfigurationValueError(keyPath: "CognitoUserPool.Default.AppClientId", expected: "a non-empty string", found: nil)) {
            try sample.requiredString("CognitoUserPool.Default.AppClientId")
        }
        #expect(throws: ConfigurationValueError(keyPath: "CognitoUserPool.Default.Retries", expected: "a string", found: 3)) {
            try sample.optionalString("CognitoUserPool.Default.Retries")
        }
        #expect(throws: ConfigurationValueError(keyPath: "Scopes", expected: "an object", found: ["email", "openid"])) {
            try sample.requiredObject("Scopes")
        }
    }

    @Test("members by name, an Int subscript on an object, custom separators and defaults read as amplify-swift's do")
    func amplifySwiftAccessors() {
        let json: JSONValue = ["auth": ["plugins": ["awsCognitoAuthPlugin": ["Default": "x"]]], "0": "zero", "list": [1, 2]]
        #expect(json.auth?.plugins?.awsCognitoAuthPlugin?.Default == "x")
        #expect(json.missing == nil)
        #expect(json[0] == "zero")
        #expect(json.list?[1] == 2)
        #expect(json.list?[5] == nil)
        #expect(json.value(at: "auth/plugins/awsCognitoAuthPlugin", separatedBy: "/")?.Default == "x")
        #expect(json.value(at: "auth.nothing", withDefault: "fallback") == "fallback")
        #expect(json.value(at: "list", withDefault: nil) == [1, 2])
    }
}
