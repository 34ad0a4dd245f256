import Amplify
import Foundation
import Testing

/// The span decoder against Foundation's `JSONDecoder`: where it decides, the same value; where
/// it does not (`nil`), `JSONDecoder` is asked.
@Suite("JSON span decoding")
struct JSONSpanDecoderTests {
    struct Todo: Codable, Equatable {
        let id: String
        let name: String
        let description: String?
    }

    struct Everything: Codable, Equatable {
        var text: String
        var flag: Bool
        var int: Int
        var small: Int8
        var unsigned: UInt16
        var double: Double
        var float: Float
        var optional: Int?
        var list: [Int]
        var nested: [Todo]
        var map: [String: Double]
        var intKeys: [Int: String]
        var kind: Kind
        var matrix: [[Bool]]
        enum Kind: String, Codable { case a, b }
    }

    /// Tries an integer first and a double next, catching the first error (as JSON value types do).
    enum Number: Decodable, Equatable {
        case int(Int)
        case double(Double)
        case text(String)
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Int.self) {
                self = .int(value)
            } else if let value = try? container.decode(Double.self) {
                self = .double(value)
            } else {
                self = .text(try container.decode(String.self))
            }
        }
    }

    /// Reads an array element as a number, and when that fails, as text: the same element.
    struct Retry: Decodable, Equatable {
        var values: [String]
        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            values = []
            while !container.isAtEnd {
                if let number = try? container.decode(Int.self) {
                    values.append("#\(number)")
                } else {
                    values.append(try container.decode(String.self))
                }
            }
        }
    }

    struct Stamped: Codable, Equatable {
        var at: Date
        var link: URL
    }

    /// Decodes `text` both ways; returns whether the span decoder decided.
    @discardableResult
    private func agree<T: Decodable & Equatable>(_ text: String, as type: T.Type) throws -> Bool {
        let bytes = Array(text.utf8)
        let spans = JSONSpans(bytes)
        let root = try #require(spans.root(), "not one JSON value: \(text)")
        let fast = JSONSpanDecoder.decode(T.self, from: spans, at: root)
        let foundation = try? JSONDecoder().decode(T.self, from: Data(bytes))
        if let fast {
            #expect(fast == foundation, "span decoder \(fast), JSONDecoder \(String(describing: foundation)) for \(text)")
        }
        return fast != nil
    }

    @Test(
        "the everyday shapes decode without JSONDecoder and to the same values",
        arguments: [
            #"{"id":"1","name":"a","description":null}"#,
            #"{"id":"1","name":"a"}"#,
            " {\n \"id\" : \"x\\\"y\\\\z\\/\" ,\r\n\t\"name\":\"line\\nbreak \\u00e9 \\ud83d\\ude00\", \"extra\": [1, {\"d\": [true]}]} ",
            #"{"id":"","name":"é😀 plain UTF-8","description":"d"}"#,
        ])
    func everydayTodos(text: String) throws {
        #expect(try agree(text, as: Todo.self))
    }

    struct Optionals: Codable, Equatable {
        var text: String?
        var flag: Bool?
        var int: Int?
        var small: Int8?
        var unsigned: UInt64?
        var double: Double?
        var float: Float?
        var todo: Todo?
        var list: [Int]?
    }

    /// (Present, null and missing members decode; a member of the wrong kind fails both ways, or
    /// is left to JSONDecoder where the span decoder does not decide: a fraction read as `Int`.)
    @Test(
        "optional members decode in one look-up as JSONDecoder decodes them: present, null, missing, or of the wrong kind",
        arguments: [
            (
                #"{"text":"t","flag":true,"int":-1,"small":127,"unsigned":18446744073709551615,"double":2.5,"float":0.5,"todo":{"id":"1","name":"n"},"list":[1]}"#,
                true
            ),
            (#"{"text":null,"flag":null,"int":null,"small":null,"unsigned":null,"double":null,"float":null,"todo":null,"list":null}"#, true),
            ("{}", true),
            (#"{"text":1}"#, false), (#"{"flag":"yes"}"#, false), (#"{"small":128}"#, false), (#"{"unsigned":-1}"#, false),
            (#"{"int":1.5}"#, false), (#"{"todo":[]}"#, false), (#"{"list":{}}"#, false),
        ])
    func optionalMembers(text: String, decodes: Bool) throws {
        #expect(try agree(text, as: Optionals.self) == decodes)
        #expect((try? JSONDecoder().decode(Optionals.self, from: Data(text.utf8))) != nil || !decodes)
    }

    @Test("every primitive, collection, dictionary, enum and nesting decodes as JSONDecoder decodes it")
    func everything() throws {
        let text = """
            {"text":"t","flag":true,"int":-9223372036854775808,"small":-128,"unsigned":65535,"double":-1.5e-3,"float":0.1,
             "optional":null,"list":[0,-0,7],"nested":[{"id":"1","name":"n"}],"map":{"a":1,"b":2.5},"intKeys":{"1":"x","-2":"y"},
             "kind":"b","matrix":[[true],[],[false,true]]}
            """
        #expect(try agree(text, as: Everything.self))
    }

    /// (`Number` tries `Int` first: a fraction, exponent or overflow there is left to JSONDecoder,
    /// whatever the type does next.)
    @Test(
        "numbers: an integer's fraction, exponent or overflow, and a number too small to be told from 0, go to JSONDecoder",
        arguments: [
            ("1", true), ("-0", true), ("1.5", false), ("1.0", false), ("1e-400", false), ("1e2", false), ("9223372036854775808", false),
            ("\"7\"", true),
        ])
    func numbers(text: String, decided: Bool) throws {
        #expect(try agree(text, as: Number.self) == decided)
        _ = try agree(#"{"small":\#(text)}"#, as: [String: Int8].self)
        _ = try agree("[\(text)]", as: [UInt].self)
        _ = try agree("[\(text)]", as: [Float].self)
        _ = try agree("[\(text)]", as: [Double].self)
    }

    /// (Found by the appsync fuzz target, input `0e4`: Foundation's JSONDecoder refuses `0e1`…`0e9`
    /// and `0E1`…`0E9`, valid JSON that it reads with a sign, a second exponent digit or a fraction.)
    @Test("a zero with an exponent is left to JSONDecoder, which refuses some of them", arguments: ["0e4", "0E9", "-0e4", "0e+4", "0e04", "0.0e4"])
    func zeroWithExponent(text: String) throws {
        #expect(try !agree(text, as: JSONValue.self))
        #expect(try !agree("[1,\(text)]", as: [JSONValue].self))
        #expect(try !agree(#"{"a":\#(text)}"#, as: [String: Double].self))
        _ = try agree(text, as: Number.self)
    }

    @Test("an element a type fails to read is read again by its next try, as in JSONDecoder")
    func unkeyedRetries() throws {
        #expect(try agree(#"[1,"a",2,"b"]"#, as: Retry.self))
    }

    @Test(
        "dates, URLs, a key twice, a non-ASCII key and what is not strict JSON are left to JSONDecoder",
        arguments: [
            #"{"at":0,"link":"https://example.com"}"#,
            #"{"id":"1","name":"a","name":"b"}"#,
            #"{"id":"1","name":"a","é":1}"#,
            #"{"id":"1","name":"a","extra":tru}"#,
            #"{"id":"1","name":"a","extra":01}"#,
            #"{"id":"1","name":"a","extra":"\x"}"#,
            #"{"id":"1","name":"\ud800"}"#,
            "{\"id\":\"1\",\"name\":\"a\",\"extra\":\"tab\there\"}",
            #"{"id":"1","name":"a","extra":[1,]}"#,
            #"{"id":"1","name":"a",}"#,
        ])
    func undecided(text: String) throws {
        #expect(try !agree(text, as: Todo.self))
        _ = try agree(text, as: Stamped.self)
    }

    /// (Found by the appsync fuzz target: the core's parser, which read escaped strings, repairs
    /// invalid UTF-8 that JSONDecoder refuses.)
    @Test("a string with an escape and bytes that are not UTF-8 is left to JSONDecoder")
    func escapedStringThatIsNotUTF8() throws {
        let bytes = Array(#"{"id":"a\rb"#.utf8) + [0xFF, 0xFE] + Array(#"","name":"n"}"#.utf8)
        let spans = JSONSpans(bytes)
        let root = try #require(spans.root())
        #expect(JSONSpanDecoder.decode(Todo.self, from: spans, at: root) == nil)
        #expect(JSONSpanDecoder.decode(JSONValue.self, from: spans, at: root) == nil)
    }

    @Test(
        "a value JSONDecoder refuses is refused",
        arguments: [
            #"{"id":1,"name":"a"}"#, #"{"name":"a"}"#, #"{"id":null,"name":"a"}"#, #"[{"id":"1","name":"a"}]"#, #""text""#,
        ])
    func refusals(text: String) throws {
        let bytes = Array(text.utf8)
        let spans = JSONSpans(bytes)
        let root = try #require(spans.root())
        #expect(JSONSpanDecoder.decode(Todo.self, from: spans, at: root) == nil)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Todo.self, from: Data(bytes)) }
    }

    @Test(
        "strict JSON is valid, and JSONDecoder reads it",
        arguments: [
            "null", "0", "-0.0e+0", "\"\"", "[]", "{}", "[[[]]]", #"{"a":{"b":[1,{"c":null}]}}"#, " 1 ", #""\u00e9\/\b""#,
        ])
    func strictlyValid(text: String) throws {
        let bytes = Array(text.utf8)
        #expect(JSONSpans(bytes).isStrictlyValid(0..<bytes.count))
        #expect((try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))) != nil)
    }

    /// (JSONDecoder itself reads some of these, a trailing comma for one: the span decoder then
    /// leaves them to it.)
    @Test(
        "what is not strict JSON is not valid",
        arguments: [
            "nul", "01", "1.", ".5", "-", "1e", "+1", "[1 2]", "{\"a\" 1}", "{\"a\":}", "{,}", "[,1]", "\"\\q\"", "\"\\u12\"", "{\"a\":1,}",
            "[1]]", "{]", "tru e", "\"a", "[\"\u{01}\"]", "[1,]", "",
        ])
    func notStrictlyValid(text: String) {
        let bytes = Array(text.utf8)
        #expect(!JSONSpans(bytes).isStrictlyValid(0..<bytes.count))
    }

    @Test("nesting deeper than 64 is left to JSONDecoder")
    func deepNesting() {
        let deep = Array((String(repeating: "[", count: 65) + String(repeating: "]", count: 65)).utf8)
        let shallow = Array((String(repeating: "[", count: 64) + String(repeating: "]", count: 64)).utf8)
        #expect(!JSONSpans(deep).isStrictlyValid(0..<deep.count))
        #expect(JSONSpans(shallow).isStrictlyValid(0..<shallow.count))
    }
}
