import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import AmplifyTestKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// REST against the test HTTP server's API Gateway stand-in, which recomputes each request's
/// `execute-api` SigV4 signature with an implementation of its own.
@Suite("REST")
struct RESTTests {
    static let key = AWSCredentials(accessKeyId: "AKIDEXECUTEAPI", secretAccessKey: "execute-api-secret")

    private func fixture(_ http: LocalHTTPServer, credentials: AWSCredentials = RESTTests.key, mode: AWSAuthorizationType = .awsIAM) throws
        -> APIFixture
    {
        try APIFixture(
            endpoint: http.url("/graphql"), credentials: credentials,
            more: [
                APIEndpointConfiguration(
                    name: "orders api", endpointType: .rest, endpoint: http.url("/execute-api/dev"), region: "us-east-1", authorizationType: mode)
            ])
    }

    private func echo(_ data: Data) throws -> JSONValue { try JSONDecoder().decode(JSONValue.self, from: data) }

    @Test("GET, POST, PUT, PATCH and DELETE are signed for execute-api and accepted; path, query and body arrive as sent")
    func signedMethods() async throws {
        let http = try await LocalHTTPServer.start()
        defer { http.stop() }
        let fixture = try fixture(http)
        let get = try echo(
            try await fixture.plugin.get(
                request: RESTRequest(
                    path: "/orders/42 a", queryParameters: ["expand": "lines items", "limit": "5"])))
        #expect(get["method"] == "GET")
        #expect(get["path"] == "/execute-api/dev/orders/42%20a")
        #expect(get["query"] == "expand=lines%20items&limit=5")
        for method in ["POST", "PUT", "PATCH", "DELETE"] {
            let request = RESTRequest(apiName: "orders api", path: "/orders", headers: ["X-Trace": "t-1"], body: Data(#"{"qty": 2}"#.utf8))
            let data =
                switch method {
                case "POST": try await fixture.plugin.post(request: request)
                case "PUT": try await fixture.plugin.put(request: request)
                case "PATCH": try await fixture.plugin.patch(request: request)
                default: try await fixture.plugin.delete(request: request)
                }
            let answer = try echo(data)
            #expect(answer["method"] == .string(method))
            #expect(answer["body"] == #"{"qty": 2}"#)
            #expect(answer.value(at: "headers.content-type") == "application/json")
            #expect(answer["signedHeaders"]?.asArray?.contains("x-trace") == true, "\(method)")
        }
        try await fixture.close()
    }

    @Test("a wrong secret is refused by the stand-in: APIError.httpStatusError 403 with API Gateway's message and the body")
    func wrongSecretIsRefused() async throws {
        let http = try await LocalHTTPServer.start()
        defer { http.stop() }
        let fixture = try fixture(http, credentials: AWSCredentials(accessKeyId: Self.key.accessKeyId, secretAccessKey: "wrong"))
        let error = await #expect(throws: APIError.self) { try await fixture.plugin.get(request: RESTRequest(path: "/orders")) }
        guard case .httpStatusError(403, let response)? = error else {
            Issue.record("expected a 403, got \(String(describing: error))")
            return
        }
        #expect(response.value(forHTTPHeaderField: "x-amzn-ErrorType") == "InvalidSignatureException")
        #expect(
            error?.errorDescription.hasPrefix(
                "The HTTP response status code is [403]. The service said: InvalidSignatureException: The request signature we calculated does not match"
            ) == true)
        try await fixture.close()
    }

    @Test("a non-2xx answer throws httpStatusError with the status, the headers and the body")
    func statusError() async throws {
        let http = try await LocalHTTPServer.start()
        defer { http.stop() }
        let fixture = try fixture(http)
        let error = await #expect(throws: APIError.self) { try await fixture.plugin.get(request: RESTRequest(path: "/status/418")) }
        guard case .httpStatusError(418, let response)? = error else {
            Issue.record("expected a 418, got \(String(describing: error))")
            return
        }
        #expect(response.value(forHTTPHeaderField: "X-Test-Server") == "yes")
        #expect(try error?.httpResponseBody.map(echo)?["path"] == "/execute-api/dev/status/418")
        try await fixture.close()
    }

    @Test("an interceptor's header is added before signing: it arrives and is among the signed headers")
    func interceptorsRunBeforeSigning() async throws {
        struct AddTenant: URLRequestInterceptor {
            func intercept(_ request: URLRequest) async throws -> URLRequest {
                var request = request
                request.setValue("tenant-7", forHTTPHeaderField: "X-Tenant")
                return request
            }
        }
        let http = try await LocalHTTPServer.start()
        defer { http.stop() }
        let fixture = try fixture(http)
        try fixture.plugin.add(interceptor: AddTenant(), for: "orders api")
        let answer = try echo(try await fixture.plugin.get(request: RESTRequest(path: "/tenants")))
        #expect(answer.value(at: "headers.x-tenant") == "tenant-7")
        #expect(answer["signedHeaders"]?.asArray?.contains("x-tenant") == true)
        let error = #expect(throws: APIError.self) { try fixture.plugin.add(interceptor: AddTenant(), for: "nope") }
        #expect(error?.errorDescription.hasPrefix("There is no API named 'nope' to add an interceptor to") == true)
        try await fixture.close()
    }

    @Test("with two APIs of a type the request must name one; a GraphQL API named for a REST call is refused")
    func apiSelection() async throws {
        let http = try await LocalHTTPServer.start()
        defer { http.stop() }
        let fixture = try APIFixture(
            endpoint: http.url("/graphql"), credentials: Self.key,
            more: [
                APIEndpointConfiguration(
                    name: "a", endpointType: .rest, endpoint: http.url("/execute-api/a"), region: "us-east-1", authorizationType: .awsIAM),
                APIEndpointConfiguration(
                    name: "b", endpointType: .rest, endpoint: http.url("/execute-api/b"), region: "us-east-1", authorizationType: .awsIAM),
            ])
        let ambiguous = await #expect(throws: APIError.self) { try await fixture.plugin.get(request: RESTRequest(path: "/x")) }
        #expect(ambiguous?.errorDescription == "The configuration has 2 REST APIs ('a', 'b') and the request names none.")
        #expect(try echo(try await fixture.plugin.get(request: RESTRequest(apiName: "b", path: "/x")))["path"] == "/execute-api/b/x")
        let wrongType = await #expect(throws: APIError.self) { try await fixture.plugin.get(request: RESTRequest(apiName: "todos", path: "/x")) }
        #expect(wrongType?.errorDescription == "The API 'todos' is a GraphQL API, not a REST one.")
        try await fixture.close()
    }
}
