import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import AmplifyTestKit
import Foundation
import Testing

/// What a GraphQL answer becomes: data at the decode path, partial data with errors, errors
/// alone, transformation errors that keep the raw text, and the failures that have no GraphQL
/// answer at all (not JSON, a 500, a stall past the time limit), each a clear `APIError`.
// Serialized: each test starts a stand-in of its own, and a full parallel run on two cores must
// not start a dozen at once.
@Suite("GraphQL over HTTP: responses", .serialized)
struct GraphQLResponseTests {
    @Test("a mutation's data decodes at its decodePath, and a query reads the same todo back; variables of every JSON kind are sent")
    func decodePathAndVariables() async throws {
        try await AppSyncServer.with { server in
            let fixture = try APIFixture(server: server)
            let input: [String: any Sendable] = [
                "name": "buy milk", "description": "semi-skimmed", "priority": 3, "done": false, "tags": ["shop", "food"],
                "meta": #"{"aisle": 7}"#,
            ]
            let created = try await fixture.plugin.mutate(
                request: GraphQLRequest(
                    document: Documents.create, variables: ["input": input], responseType: Todo.self, decodePath: "createTodo")
            ).get()
            #expect(created.name == "buy milk")
            #expect(created.priority == 3)
            #expect(created.done == false)
            #expect(created.tags == ["shop", "food"])
            let read = try await fixture.plugin.query(
                request: GraphQLRequest(
                    document: Documents.get, variables: ["id": JSONValue.string(created.id)], responseType: Todo.self, decodePath: "getTodo")
            ).get()
            #expect(read == created)
            let whole = try await fixture.plugin.query(
                request: GraphQLRequest(
                    document: Documents.get, variables: ["id": created.id], responseType: JSONValue.self)
            ).get()
            #expect(whole.value(at: "getTodo.name") == "buy milk")
            let raw = try await fixture.plugin.query(
                request: GraphQLRequest(
                    document: Documents.get, variables: ["id": created.id], responseType: String.self, decodePath: "getTodo.name")
            ).get()
            #expect(raw == #""buy milk""#)
            try await fixture.close()
        }
    }

    @Test("a field that fails while its siblings resolve gives .partial with the data and the error's path and errorType")
    func partialData() async throws {
        try await AppSyncServer.with { server in
            let fixture = try APIFixture(server: server)
            let todo = try await fixture.create("partial")
            let response = try await fixture.plugin.query(
                request: GraphQLRequest(
                    document: "query Get($id: ID!) { getTodo(id: $id) { id name failingField } }", variables: ["id": todo.id],
                    responseType: Todo.self, decodePath: "getTodo"))
            guard case .partial(let data, let errors)? = response.failure else {
                Issue.record("expected partial data, got \(response)")
                return
            }
            #expect(data.id == todo.id)
            #expect(data.failingField == nil)
            #expect(errors.count == 1)
            #expect(errors.first?.path == ["getTodo", "failingField"])
            #expect(errors.first?.errorType == "CustomError")
            #expect(errors.first?.locations?.isEmpty == false)
            try await fixture.close()
        }
    }

    @Test("a query whose only field fails gives .error; a validation error keeps its message and location")
    func errorsOnly() async throws {
        try await AppSyncServer.with { server in
            let fixture = try APIFixture(server: server)
            let failing = try await fixture.plugin.query(
                request: GraphQLRequest(
                    document: "query { errorTodo(id: \"x\") { id name } }", responseType: Todo.self, decodePath: "errorTodo"))
            guard case .error(let errors)? = failing.failure else {
                Issue.record("expected errors, got \(failing)")
                return
            }
            #expect(errors.first?.errorType == "CustomError")
            let invalid = try await fixture.plugin.query(request: GraphQLRequest(document: "query { nope }", responseType: JSONValue.self))
            guard case .error(let validation)? = invalid.failure else {
                Issue.record("expected a validation error, got \(invalid)")
                return
            }
            #expect(validation.first?.message.contains("nope") == true)
            #expect(validation.first?.locations?.first == GraphQLError.Location(line: 1, column: 9))
            #expect(invalid.failure?.errorDescription.hasPrefix("The GraphQL response has an error: ") == true)
            try await fixture.close()
        }
    }

    @Test("a decodePath that is not in the data, or data of the wrong shape, is a transformationError that keeps the raw response")
    func transformationErrors() async throws {
        try await AppSyncServer.with { server in
            let fixture = try APIFixture(server: server)
            let todo = try await fixture.create("shape")
            let missing = try await fixture.plugin.query(
                request: GraphQLRequest(
                    document: Documents.get, variables: ["id": todo.id], responseType: Todo.self, decodePath: "getTodo.owner.name"))
            guard case .transformationError(let raw, let error)? = missing.failure else {
                Issue.record("expected a transformation error, got \(missing)")
                return
            }
            #expect(raw.contains("\"shape\""))
            #expect(error.errorDescription.contains("decode path `getTodo.owner.name`") || error.errorDescription.contains("does not decode"))
            let wrong = try await fixture.plugin.query(
                request: GraphQLRequest(
                    document: "query Get($id: ID!) { getTodo(id: $id) { id } }", variables: ["id": todo.id], responseType: Todo.self,
                    decodePath: "getTodo"))
            guard case .transformationError(_, let shapeError)? = wrong.failure else {
                Issue.record("expected a transformation error, got \(wrong)")
                return
            }
            #expect(shapeError.errorDescription == "The response's data at `getTodo` does not decode to Todo: no `name`")
            try await fixture.close()
        }
    }

    @Test("a 500 from the service is APIError.httpStatusError(500) with the service's errorType and message, and the body")
    func serverError() async throws {
        try await AppSyncServer.with { server in
            let fixture = try APIFixture(server: server)
            try server.control("fail", ["status": "500", "errorType": "InternalFailure", "message": "boom"])
            let error = await #expect(throws: APIError.self) {
                try await fixture.plugin.query(request: GraphQLRequest(document: Documents.whoAmI, responseType: JSONValue.self))
            }
            guard case .httpStatusError(500, _)? = error else {
                Issue.record("expected a 500, got \(String(describing: error))")
                return
            }
            #expect(error?.errorDescription == "The HTTP response status code is [500]. The service said: InternalFailure: boom")
            #expect(error?.recoverySuggestion == "The service failed; try again later.")
            // The next request is answered normally.
            _ = try await fixture.plugin.query(request: GraphQLRequest(document: Documents.whoAmI, responseType: JSONValue.self)).get()
            try await fixture.close()
        }
    }

    @Test("an answer that is not JSON, and JSON that is no GraphQL response, are APIError.operationError saying what came back")
    func notJSON() async throws {
        let http = try await LocalHTTPServer.start()
        defer { http.stop() }
        let fixture = try APIFixture(endpoint: http.url("/slow?ms=1"))
        let error = await #expect(throws: APIError.self) {
            try await fixture.plugin.query(request: GraphQLRequest(document: Documents.whoAmI, responseType: JSONValue.self))
        }
        guard case .operationError(let description, _, _)? = error else {
            Issue.record("expected an operation error, got \(String(describing: error))")
            return
        }
        #expect(description == "The GraphQL endpoint answered with something that is not JSON: \"done\".")
        try await fixture.close()
        let echo = try APIFixture(endpoint: http.url("/echo"))
        let other = await #expect(throws: APIError.self) {
            try await echo.plugin.query(request: GraphQLRequest(document: Documents.whoAmI, responseType: JSONValue.self))
        }
        #expect(other?.errorDescription.hasPrefix("The GraphQL endpoint answered with JSON that has neither `data` nor `errors`") == true)
        try await echo.close()
    }

    @Test("a server that stalls past the request timeout fails with APIError.networkError in time, not a hang")
    func stallTimesOut() async throws {
        try await AppSyncServer.with { server in
            let fixture = try APIFixture(server: server, options: AWSAPIPlugin.Options(requestTimeout: .milliseconds(500)))
            // The stall outlasts the bound by far, so only the 500 ms timeout can end the call in
            // time (the bound leaves room for a loaded machine).
            try server.control("stall", ["seconds": "120", "count": "1", "scope": "http"])
            let started = ContinuousClock.now
            let error = await #expect(throws: APIError.self) {
                try await fixture.plugin.query(request: GraphQLRequest(document: Documents.whoAmI, responseType: JSONValue.self))
            }
            #expect(ContinuousClock.now - started < .seconds(40))
            guard case .networkError(let description, _, _)? = error else {
                Issue.record("expected a network error, got \(String(describing: error))")
                return
            }
            #expect(description.contains("timed out"))
            try await fixture.close()
        }
    }

    @Test("nothing listens on the endpoint: APIError.networkError naming the API and the URL")
    func nothingListening() async throws {
        let fixture = try APIFixture(endpoint: try #require(URL(string: "http://127.0.0.1:9/graphql")))
        let error = await #expect(throws: APIError.self) {
            try await fixture.plugin.query(request: GraphQLRequest(document: Documents.whoAmI, responseType: JSONValue.self))
        }
        #expect(error?.errorDescription.hasPrefix("The request to the API 'todos' (http://127.0.0.1:9/graphql) failed:") == true)
        try await fixture.close()
    }
}
