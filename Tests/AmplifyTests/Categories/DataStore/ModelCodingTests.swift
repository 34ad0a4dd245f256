import Amplify
import Foundation
import GeneratedModelsGen1
import GeneratedModelsGen2
import Testing

@Suite("Models in and out of JSON")
struct ModelCodingTests {
    @Test("a lazy reference decodes loaded from a whole model, or as the key when only the key came; a null is empty")
    func lazyReferences() async throws {
        let whole = try BlogComment.from(json: #"{"id":"c1","content":"hi","post":{"id":"p1","title":"T","status":"DRAFT"}}"#)
        #expect(try await whole.post?.title == "T")
        let keyOnly = try JSONDecoder().decode(LazyReference<Post>.self, from: Data(#"{"id":"p2"}"#.utf8))
        guard case .notLoaded(let identifiers) = keyOnly._state else {
            Issue.record("a reference with only the key decoded as loaded")
            return
        }
        #expect(identifiers == [LazyReferenceIdentifier(name: "id", value: "p2")])
        #expect(identifiers?.stringValue == "p2")
        let empty = try BlogComment.from(json: #"{"id":"c3","content":"hi","post":null}"#)
        #expect(try await empty.post == nil)
    }

    @Test("a list decodes from an array or from AppSync's {items, nextToken}, and is loaded either way")
    func lists() throws {
        let fromArray = try Blog.from(json: #"{"id":"b1","name":"n","posts":[{"id":"p1","title":"A","status":"PUBLISHED"}]}"#)
        #expect(fromArray.posts?.map(\.title) == ["A"])
        let fromConnection = try Blog.from(
            json:
                #"{"id":"b1","name":"n","posts":{"items":[{"id":"p1","title":"A","status":"DRAFT"},{"id":"p2","title":"B","status":"DRAFT"}],"nextToken":null}}"#
        )
        #expect(fromConnection.posts?.isLoaded == true)
        #expect(fromConnection.posts?.count == 2)
        #expect(fromConnection.posts?.hasNextPage() == false)
    }

    @Test("a value that does not fit the model is a DecodingError that names the field: a missing required field, a wrong enum case")
    func mismatches() {
        #expect {
            try Post.from(json: #"{"id":"p1","status":"DRAFT"}"#)
        } throws: { error in
            guard case DecodingError.keyNotFound(let key, _) = error else { return false }
            return key.stringValue == "title"
        }
        #expect {
            try Post.from(json: #"{"id":"p1","title":"T","status":"LOST"}"#)
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.codingPath.map(\.stringValue) == ["status"]
        }
    }

    @Test("a Gen 1 model round-trips through JSON: enum by name, dates in AppSync's forms, embedded notes, the parent model")
    func roundTrip() throws {
        let todo = Todo(
            id: "t1", name: "n", done: true, priority: .low, dueOn: try Temporal.Date(iso8601String: "2024-05-10"),
            remindAt: try Temporal.Time(iso8601String: "09:30"), notes: [try JSONDecoder().decode(Note.self, from: Data(#"{"text":"first"}"#.utf8))],
            labels: ["a"],
            project: Project(id: "pr1", name: "P"))
        let json = try todo.toJSON()
        #expect(json.contains(#""priority":"LOW""#))
        #expect(json.contains(#""dueOn":"2024-05-10Z""#))
        #expect(json.contains(#""remindAt":"09:30:00.000Z""#))
        let back = try Todo.from(json: json)
        #expect(back.priority == .low)
        #expect(back.dueOn == todo.dueOn)
        #expect(back.notes?.count == 1)
        #expect(back.project?.name == "P")
        #expect(back.identifier == "t1")
        #expect(back["name"] as? String == "n")
        #expect(back["missing"] == nil)
        #expect(back["description"]! == nil)
    }
}
