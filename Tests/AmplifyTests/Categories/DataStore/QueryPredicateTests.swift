import Amplify
import Foundation
import GeneratedModelsGen1
import Testing

@Suite("Query predicates")
struct QueryPredicateTests {
    /// The date `text` names (today when it names none, which the tests that use it would notice).
    static func day(_ text: String) -> Temporal.Date { (try? Temporal.Date(iso8601String: text)) ?? .now() }

    static let todo = Todo(
        id: "t1", name: "Write the guide", description: nil, done: false, priority: .high,
        dueOn: day("2024-05-10"), estimate: 2.5, labels: ["docs"])

    @Test(
        "every operator decides as AppSync's filters do",
        arguments: [
            (Todo.keys.name == "Write the guide", true),
            (Todo.keys.name != "Write the guide", false),
            (Todo.keys.done == false, true),
            (Todo.keys.priority == Priority.high, true),
            (Todo.keys.priority != Priority.low, true),
            (Todo.keys.estimate > 2, true),
            (Todo.keys.estimate >= 2.5, true),
            (Todo.keys.estimate < 2.5, false),
            (Todo.keys.estimate <= 3, true),
            (Todo.keys.name ~= "guide", true),
            (Todo.keys.name.contains("Guide"), false),
            (Todo.keys.name.notContains("blog"), true),
            (Todo.keys.name.beginsWith("Write"), true),
            (Todo.keys.estimate.between(start: 1, end: 2.5), true),
            (Todo.keys.dueOn.between(start: day("2024-05-01"), end: day("2024-05-31")), true),
            (Todo.keys.description.attributeExists(false), true),
            (Todo.keys.description == nil, true),
            (Todo.keys.name.attributeExists(true), true),
            (Todo.keys.done > false, false),
            (Todo.keys.name > 3, false),
        ] as [(QueryPredicateOperation, Bool)])
    func operators(predicate: QueryPredicateOperation, expected: Bool) {
        #expect(predicate.evaluate(target: Self.todo) == expected, "\(predicate.field)")
    }

    @Test("&&, || and ! combine; an `and` group grows in place, as amplify-swift's does")
    func groups() throws {
        let both = Todo.keys.done == false && Todo.keys.priority == Priority.high
        #expect(both.evaluate(target: Self.todo))
        let grown = both && Todo.keys.estimate > 10
        #expect(grown === both)
        #expect(grown.predicates.count == 3)
        #expect(!grown.evaluate(target: Self.todo))
        #expect((Todo.keys.estimate > 10 || Todo.keys.name.beginsWith("Write")).evaluate(target: Self.todo))
        #expect(!(!(Todo.keys.done == false)).evaluate(target: Self.todo))
        #expect(not(Todo.keys.done == true).evaluate(target: Self.todo))
        #expect(QueryPredicateConstant.all.evaluate(target: Self.todo))
    }

    @Test("predicates encode as amplify-swift encodes them")
    func encoding() throws {
        let predicate = Todo.keys.estimate.between(start: 1, end: 3) || !(Todo.keys.name == "x")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(AnyEncodable(predicate)), as: UTF8.self)
        #expect(
            json
                == #"{"predicates":[{"field":"estimate","operator":{"end":3,"start":1,"type":"between"}},"#
                + #"{"predicates":[{"field":"name","operator":{"type":"equals","value":"x"}}],"type":"not"}],"type":"or"}"#)
    }

    struct AnyEncodable: Encodable {
        let value: any Encodable
        init(_ value: any Encodable) { self.value = value }
        func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
    }
}
