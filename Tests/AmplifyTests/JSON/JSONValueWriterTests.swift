import Amplify
import Foundation
import Testing

/// `JSONValue.jsonBytes()`, the direct writer request bodies use instead of `JSONEncoder`.
@Suite("JSONValue's direct JSON writer")
struct JSONValueWriterTests {
    static let samples: [JSONValue] = [
        .null, true, false, 0, -0.0, 42, -7, 1.5, 0.1, 1e-7, 123_456_789_012_345, 1e15, 1e300, -2.5e-300,
        "", "plain", "quote \" backslash \\ slash /", "control \u{0} \u{1} \u{1F} \n \r \t \u{8} \u{C}", "unicode é 日本 👩‍👩‍👧 \u{2028}",
        [], [1, "two", [3], ["four": 4]], [:],
        ["query": "query Q($id: ID!) { getTodo(id: $id) { id name } }", "variables": ["id": "1", "limit": 10, "nested": ["a": [true, .null]]]],
    ]

    @Test("every value reads back the same through JSONValue(parsing:), and as JSONEncoder's output does", arguments: samples)
    func roundTrips(_ value: JSONValue) throws {
        let written = try value.jsonBytes()
        #expect(try JSONValue(parsing: written) == value)
        #expect(try JSONValue(parsing: written) == JSONValue(parsing: Array(JSONEncoder().encode(value))))
    }

    @Test("the text is compact, integers have no fraction, control characters are escaped")
    func exactText() throws {
        #expect(
            String(decoding: try JSONValue.array([1, 2.5, "a\"b", "\u{1}\n", .null, false]).jsonBytes(), as: UTF8.self)
                == #"[1,2.5,"a\"b","\u0001\n",null,false]"#)
        #expect(String(decoding: try JSONValue.object(["k": -3]).jsonBytes(), as: UTF8.self) == #"{"k":-3}"#)
        // Escapes at the start, in the middle and at the end of a run of plain bytes.
        #expect(String(decoding: try JSONValue.array(["\"é\tz\\", "", "plain"]).jsonBytes(), as: UTF8.self) == #"["\"é\tz\\","","plain"]"#)
    }

    @Test("an infinite or NaN number is an encoding error, as with JSONEncoder", arguments: [Double.infinity, -Double.infinity, Double.nan])
    func nonFiniteNumbersThrow(_ number: Double) {
        #expect(throws: EncodingError.self) { try JSONValue.array([.number(number)]).jsonBytes() }
    }
}
