import Amplify
import Foundation
import Testing

@Suite("JSON parser")
struct JSONValueParserTests {
    @Test("Parses what JSONDecoder parses, to the same values (escapes, surrogate pairs, numbers, nesting)")
    func agreesWithJSONDecoder() throws {
        let documents = [
            #"{"a": [1, -2.5, 3e2, 0, -0.125E-2], "b": {"c": null, "d": true, "e": false}, "f": "x\"y\\z\/\n\t\u00e9\ud83d\ude00", "g": []}"#,
            #"[]"#, #"{}"#, #"  "plain"  "#, #"12345678901234"#, #"[[[[{"deep": ["ok"]}]]]]"#,
            #"{"sub": "7d8e9f00", "exp": 1796072597, "cognito:username": "älice ✓"}"#,
        ]
        for document in documents {
            let expected = try JSONDecoder().decode(JSONValue.self, from: Data(document.utf8))
            #expect(try JSONValue(parsing: Array(document.utf8)) == expected, "\(document)")
        }
    }

    @Test("Malformed input is an error with the offset, never a crash; nesting over 512 levels is refused")
    func refusesMalformedInput() {
        let bad = [
            "", "{", "[1,]", "{\"a\" 1}", "{\"a\":}", "tru", "nul", "01", "1.", "-", "1e", "\"open", "\"\\x\"", "\"\\u12\"",
            "\"\\ud800\"", "\"\\udc00\"", "\"tab\there\"", "[1] 2", "{\"a\":1,}", "{1:2}",
        ]
        for text in bad {
            #expect(throws: JSONValue.ParseError.self, "\(text)") { try JSONValue(parsing: Array(text.utf8)) }
        }
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: JSONValue.ParseError.self) { try JSONValue(parsing: Array(deep.utf8)) }
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect(throws: Never.self) { try JSONValue(parsing: Array(fine.utf8)) }
        do {
            _ = try JSONValue(parsing: Array("{\"a\" 1}".utf8))
        } catch {
            #expect(error.offset == 5)
            #expect(error.description == "invalid JSON at byte 5: expected ':'")
        }
    }
}
