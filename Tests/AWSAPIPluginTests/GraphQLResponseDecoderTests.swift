import Amplify
import Testing

@testable import AWSAPIPlugin

/// The GraphQL response decoder's fast path (the data at the decode path found by its bytes and
/// decoded alone) against its careful path (the whole body read into a JSONValue first).
@Suite("GraphQL response decoding")
struct GraphQLResponseDecoderTests {
    struct Todo: Codable, Sendable, Equatable {
        let id: String
        let name: String
        let description: String?
    }

    /// The response in a form two responses can be compared by.
    private func summary(_ response: GraphQLResponse<Todo>) -> String {
        switch response {
        case .success(let todo): "success \(todo)"
        case .failure(.partial(let todo, let errors)): "partial \(todo) \(errors.map(\.message))"
        case .failure(.error(let errors)): "error \(errors.map(\.message))"
        case .failure(.transformationError(let raw, _)): "transformationError \(raw)"
        case .failure(.unknown(let description, _, _)): "unknown \(description)"
        }
    }

    @Test(
        "both paths give the same response, whatever the spacing, escapes, nesting or members around the data",
        arguments: [
            (#"{"data":{"getTodo":{"id":"1","name":"a","description":null}}}"#, "getTodo"),
            ("{\n  \"data\" : {\r\n \"getTodo\" :\t{ \"id\" : \"1\" , \"name\" : \"a\" } } \n}\n", "getTodo"),
            (#"{"data":{"getTodo":{"id":"1\"}]","name":"a\\b{[","description":"\u00e9 \ud83d\ude00"}}}"#, "getTodo"),
            (#"{"extensions":{"cost":[1,{"x":"}"}]},"data":{"list":{"items":[{"id":"1","name":"x"},{"id":"2","name":"y"}]}}}"#, "list.items.1"),
            (#"{"data":{"getTodo":{"id":"1","name":"a","extra":[true,false,null,-1.5e3]}}}"#, "getTodo"),
            (#"{"data":{"getTodo":{"id":"1","name":"a"}},"errors":[{"message":"description failed","path":["getTodo","description"]}]}"#, "getTodo"),
            (#"{"data":{"getTodo":{"id":"1","name":"a"}},"errors":[]}"#, "getTodo"),
            (#"{"data":null,"errors":[{"message":"denied"}]}"#, "getTodo"),
            (#"{"data":{"getTodo":null}}"#, "getTodo"),
            (#"{"data":{"getTodo":{"id":"1"}}}"#, "getTodo"),
            (#"{"data":{"other":{"id":"1","name":"a"}}}"#, "getTodo"),
            (#"{"data":{"list":[{"id":"1","name":"a"}]}}"#, "list.3"),
            (#"{"data":{"list":{"0":{"id":"1","name":"a"}}}}"#, "list.0"),
            (#"{"d\u0061ta":{"getTodo":{"id":"1","name":"a"}}}"#, "getTodo"),
            // Decode paths: empty parts, a position on an object, a key of digits, signs and overflow.
            (#"{"data":{"list":{"items":[{"id":"1","name":"x"}]}}}"#, ".list..items.0."),
            (#"{"data":{"list":{"items":[{"id":"1","name":"x"}]}}}"#, "list.items.+0"),
            (#"{"data":{"list":{"items":[{"id":"1","name":"x"}]}}}"#, "list.items.-0"),
            (#"{"data":{"list":{"items":[{"id":"1","name":"x"}]}}}"#, "list.items.99999999999999999999"),
            (#"{"data":{"list":{"007":{"id":"1","name":"x"}}}}"#, "list.007"),
            (#"{"data":{"list":[{"id":"1","name":"x"}]}}"#, "list.007"),
            (#"{"data":{"getTodo":{"id":"1","name":"a"}}}"#, ""),
            // What the fast path doubts, Foundation's reader (the careful path) decides.
            (#"{"data":{"getTodo":{"id":"1","name":"a"}},}"#, "getTodo"),
            (#"{"data":{"getTodo":{"id":"1","name":"a"}}, "data":{"getTodo":{"id":"2","name":"b"}}}"#, "getTodo"),
        ])
    func pathsAgree(body: String, path: String) throws {
        let bytes = Array(body.utf8)
        let fast = try GraphQLResponseDecoder.decode(bytes, as: Todo.self, decodePath: path)
        let careful = try GraphQLResponseDecoder.carefulDecode(bytes, as: Todo.self, decodePath: path)
        #expect(summary(fast) == summary(careful))
    }

    @Test(
        "a body that is not plainly one JSON object goes to the careful path, which says it is not JSON",
        arguments: [
            #"{"data":{"getTodo":{"id":"1","name":"a"}}} trailing"#,
            #"{"data":{"getTodo":{"id":"1","name":"a"}}"#,
            #"{"data" {"getTodo":{"id":"1","name":"a"}}}"#,
            "",
        ])
    func malformedBodiesAreRefused(body: String) {
        #expect(throws: APIError.self) { try GraphQLResponseDecoder.decode(Array(body.utf8), as: Todo.self, decodePath: "getTodo") }
    }

    @Test("a real-time data message decodes from its payload, as the same response read on its own")
    func dataMessages() throws {
        let payload = #"{"data":{"onCreate":{"id":"7","name":"n","description":"d"}}}"#
        let message = Array(#"{"id":"sub-1","type":"data","payload":\#(payload)}"#.utf8)
        let decoded = try GraphQLResponseDecoder.decodeDataMessage(message, as: Todo.self, decodePath: "onCreate")
        #expect(summary(decoded) == summary(try GraphQLResponseDecoder.carefulDecode(Array(payload.utf8), as: Todo.self, decodePath: "onCreate")))
        #expect(summary(decoded) == "success \(Todo(id: "7", name: "n", description: "d"))")
    }

    @Test("spans: members and elements with their ranges; anything doubtful is nil")
    func spans() throws {
        let text = Array(#" {"a": [1, "x,]", {"b": null}], "c" : "}" } "#.utf8)
        let spans = JSONSpans(text)
        let root = try #require(spans.root())
        let values = try #require(spans.values(of: ["c", "a", "z"], in: root))
        #expect(values[2] == nil)
        #expect(String(decoding: text[try #require(values[0])], as: UTF8.self) == #""}""#)
        let array = try #require(values[1])
        #expect(spans.isArray(array))
        #expect((0..<3).map { spans.element($0, of: array).map { String(decoding: text[$0], as: UTF8.self) } } == ["1", #""x,]""#, #"{"b": null}"#])
        #expect(spans.element(3, of: array) == nil)
        let inner = try #require(spans.element(2, of: array))
        #expect(try #require(spans.values(of: ["b"], in: inner)?[0]).map { spans.isNull($0) } == true)
        #expect(spans.values(of: ["a"], in: array) == nil)
        #expect(JSONSpans(Array(#"{"a":1} {"#.utf8)).root() == nil)
        let escaped = JSONSpans(Array(#"{"a"b":1}"#.utf8))
        #expect(escaped.root().flatMap { escaped.values(of: ["a"], in: $0) } == nil)
        let twice = JSONSpans(Array(#"{"a":1,"b":2,"a":3}"#.utf8))
        #expect(twice.root().flatMap { twice.values(of: ["a"], in: $0) } == nil)
        #expect(twice.root().flatMap { twice.values(of: ["b"], in: $0) }?[0] != nil)
    }
}
