import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import AmplifyTestKit
import Foundation
import Testing

/// Each auth mode over HTTP against the AppSync stand-in, which checks every one for real: the
/// mode is accepted with the right credential and refused, with an error that says why, with a
/// wrong one.
// Serialized: each test starts a stand-in of its own, and a full parallel run on two cores must
// not start a dozen at once.
@Suite("GraphQL over HTTP: auth modes", .serialized)
struct GraphQLAuthModeTests {
    private func whoAmI(_ fixture: APIFixture, _ mode: AWSAuthorizationType? = nil) async throws -> Identity {
        try await fixture.plugin.query(
            request: GraphQLRequest(
                document: Documents.whoAmI, responseType: Identity.self, decodePath: "whoAmI", authMode: mode)
        ).get()
    }

    @Test("API_KEY (the default and per request), AWS_IAM, OPENID_CONNECT and AWS_LAMBDA are each accepted, and the server sees that mode")
    func everyModeIsAccepted() async throws {
        try await AppSyncServer.with(.allButUserPools) { server in
            let fixture = try APIFixture(
                server: server,
                factory: APIAuthProviderFactory(oidc: FixedToken(token: "oidc-token-1"), function: FixedToken(token: "lambda-token-1")))
            #expect(try await whoAmI(fixture).authMode == "API_KEY")
            #expect(try await whoAmI(fixture, AWSAuthorizationType.apiKey).authMode == "API_KEY")
            let iam = try await whoAmI(fixture, AWSAuthorizationType.awsIAM)
            #expect(iam.authMode == "AWS_IAM")
            #expect(iam.username == APIFixture.iamKey.accessKeyId)
            #expect(try await whoAmI(fixture, AWSAuthorizationType.openIDConnect).authMode == "OPENID_CONNECT")
            #expect(try await whoAmI(fixture, AWSAuthorizationType.function).authMode == "AWS_LAMBDA")
            try await fixture.close()
        }
    }

    @Test("a wrong API key is refused: APIError.httpStatusError 401 whose description carries AppSync's UnauthorizedException")
    func wrongAPIKeyIsRefused() async throws {
        try await AppSyncServer.with(.allButUserPools) { server in
            let fixture = try APIFixture(server: server, apiKey: "da2-wrong")
            let error = await #expect(throws: APIError.self) { try await whoAmI(fixture) }
            guard case .httpStatusError(401, let response)? = error else {
                Issue.record("expected a 401, got \(String(describing: error))")
                return
            }
            #expect(response.value(forHTTPHeaderField: "x-amzn-ErrorType") == "UnauthorizedException")
            #expect(
                error?.errorDescription
                    == "The HTTP response status code is [401]. The service said: UnauthorizedException: You are not authorized to make this call.")
            #expect(error?.httpResponseBody.map { String(decoding: $0, as: UTF8.self) }?.contains("UnauthorizedException") == true)
            try await fixture.close()
        }
    }

    @Test("a wrong IAM secret is refused with AppSync's InvalidSignatureException (403): the signature is really checked")
    func wrongSignatureIsRefused() async throws {
        try await AppSyncServer.with(.allButUserPools) { server in
            let fixture = try APIFixture(
                server: server, mode: .awsIAM,
                credentials: AWSCredentials(accessKeyId: APIFixture.iamKey.accessKeyId, secretAccessKey: "not-the-secret"))
            let error = await #expect(throws: APIError.self) { try await whoAmI(fixture) }
            guard case .httpStatusError(403, _)? = error else {
                Issue.record("expected a 403, got \(String(describing: error))")
                return
            }
            #expect(error?.errorDescription.contains("InvalidSignatureException: The request signature we calculated does not match") == true)
            try await fixture.close()
        }
    }

    @Test("wrong OIDC and Lambda tokens are refused with 401; a missing token provider is a configuration error that says how to give one")
    func wrongTokensAreRefused() async throws {
        try await AppSyncServer.with(.allButUserPools) { server in
            let fixture = try APIFixture(
                server: server, factory: APIAuthProviderFactory(oidc: FixedToken(token: "oidc-wrong"), function: FixedToken(token: "lambda-wrong")))
            for mode in [AWSAuthorizationType.openIDConnect, .function] {
                let error = await #expect(throws: APIError.self) { try await whoAmI(fixture, mode) }
                guard case .httpStatusError(401, _)? = error else {
                    Issue.record("\(mode): expected a 401, got \(String(describing: error))")
                    continue
                }
            }
            try await fixture.close()
            let bare = try APIFixture(server: server)
            let missing = await #expect(throws: APIError.self) { try await whoAmI(bare, .openIDConnect) }
            guard case .invalidConfiguration(let description, let suggestion, _)? = missing else {
                Issue.record("expected invalidConfiguration, got \(String(describing: missing))")
                return
            }
            #expect(description == "The request uses OPENID_CONNECT, and the plugin has no token provider for it.")
            #expect(suggestion.contains("APIAuthProviderFactory(oidc:"))
            try await bare.close()
        }
    }

    @Test("every call's outcome is dispatched on the Hub's api channel with the API's name")
    func outcomesGoToTheHub() async throws {
        try await AppSyncServer.with(.allButUserPools) { server in
            let fixture = try APIFixture(server: server)
            let todo = try await fixture.create("hub")
            _ = try await fixture.plugin.query(
                request: GraphQLRequest(document: Documents.get, variables: ["id": todo.id], responseType: Todo.self, decodePath: "getTodo"))
            #expect(await fixture.events.waitForEvents(count: 2))
            let payloads = fixture.events.payloads
            #expect(payloads.map(\.eventName) == [HubPayload.EventName.API.mutate, HubPayload.EventName.API.query])
            #expect(payloads.map { ($0.context as? APIOperationContext)?.apiName } == ["todos", "todos"])
            #expect(payloads.map { ($0.context as? APIOperationContext)?.operation } == ["mutation", "query"])
            #expect((payloads.last?.data as? GraphQLResponse<Todo>).flatMap { try? $0.get() } == todo)
            try await fixture.close()
        }
    }
}
