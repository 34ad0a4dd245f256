import AWSCognitoAuthPlugin
import AWSPluginsCore
import Amplify
import AmplifyConcurrency
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

@testable import AWSAPIPlugin

/// AMAZON_COGNITO_USER_POOLS with a real user pool (moto) and the Cognito plugin: the stand-in
/// checks each access token's signature against moto's JWKS.
// Serialized: each test starts a stand-in of its own, and a full parallel run on two cores must
// not start a dozen at once.
@Suite("GraphQL over HTTP: Cognito user pools", .serialized)
struct CognitoUserPoolTests {
    /// A user pool on moto with alice signed in through the Cognito plugin, and a stand-in that
    /// trusts the pool's tokens.
    final class Pool: Sendable {
        let loop: EventLoop
        let hub: DefaultHubPlugin
        let cognito: AWSCognitoAuthPlugin
        let folder: String
        let poolId: String
        let clientId: String
        /// Each token request's `forceRefresh`.
        let refreshes = Locked<[Bool]>([])

        init(moto: MotoServer, identityPool: Bool = false, signIn: Bool = true) async throws {
            var spec: [String: JSONValue] = ["userPool": ["name": "api", "users": [["username": "alice", "password": "Secr3t!pass"]]]]
            if identityPool { spec["identityPool"] = ["name": "api-identities", "allowGuests": true] }
            let seeded = try moto.seed(.object(spec))
            poolId = seeded["userPoolId"]?.stringValue ?? ""
            clientId = seeded["clientId"]?.stringValue ?? ""
            loop = try EventLoop(name: "api-cognito-test")
            hub = DefaultHubPlugin(loop: loop)
            folder = NSTemporaryDirectory() + "api-cognito-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            cognito = AWSCognitoAuthPlugin(hub: hub, loop: loop, environment: [:])
            var block: [String: JSONValue] = [
                "CognitoUserPool": [
                    "Default": [
                        "PoolId": .string(poolId), "AppClientId": .string(clientId), "Region": "us-east-1",
                        "Endpoint": .string(moto.endpoint.absoluteString),
                    ]
                ],
                "Auth": ["Default": ["authenticationFlowType": "USER_PASSWORD_AUTH"]],
                "credentialStore": .string(folder + "/credentials.sqlite"),
            ]
            if let identityPoolId = seeded["identityPoolId"]?.stringValue {
                block["CredentialsProvider"] = [
                    "CognitoIdentity": [
                        "Default": [
                            "PoolId": .string(identityPoolId), "Region": "us-east-1", "Endpoint": .string(moto.endpoint.absoluteString),
                        ]
                    ]
                ]
            }
            try cognito.configure(using: JSONValue.object(block))
            if signIn { _ = try await cognito.signIn(username: "alice", password: "Secr3t!pass", options: nil) }
        }

        func serverOptions(_ moto: MotoServer) -> AppSyncServer.Options {
            AppSyncServer.Options(
                apiKeys: [],
                userPool: (
                    jwksURL: "\(moto.endpoint.absoluteString)/\(poolId)/.well-known/jwks.json",
                    issuer: "https://cognito-idp.us-east-1.amazonaws.com/\(poolId)", clientIds: [clientId]
                ))
        }

        /// The plugin's own way to the token (`fetchAuthSession` on the Auth plugin), recording each call.
        var tokenSource: @Sendable (Bool) async throws -> String {
            let fetch = APIAuthSources.userPoolToken(from: { [cognito] in cognito })
            return { [refreshes] force in
                refreshes.withLock { $0.append(force) }
                return try await fetch(force)
            }
        }

        func close() async throws {
            await cognito.reset()
            await hub.reset()
            try loop.shutdown()
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    private func whoAmI(_ fixture: APIFixture) async throws -> Identity {
        try await fixture.plugin.query(request: GraphQLRequest(document: Documents.whoAmI, responseType: Identity.self, decodePath: "whoAmI")).get()
    }

    @Test("the signed-in user's access token from the Auth plugin is accepted, and the server sees that user")
    func signedInUserIsAccepted() async throws {
        try await MotoServer.with { moto in
            let pool = try await Pool(moto: moto)
            try await AppSyncServer.with(pool.serverOptions(moto)) { server in
                let fixture = try APIFixture(server: server, mode: .amazonCognitoUserPools, apiKey: nil, userPoolToken: pool.tokenSource)
                let identity = try await whoAmI(fixture)
                #expect(identity.authMode == "AMAZON_COGNITO_USER_POOLS")
                #expect(identity.username == "alice")
                #expect(pool.refreshes.value == [false])
                try await fixture.close()
            }
            try await pool.close()
        }
    }

    @Test("a 401 makes the plugin refresh the user's tokens once and send again; a second 401 in a row is the error")
    func unauthorizedRefreshesOnce() async throws {
        try await MotoServer.with { moto in
            let pool = try await Pool(moto: moto)
            try await AppSyncServer.with(pool.serverOptions(moto)) { server in
                let fixture = try APIFixture(server: server, mode: .amazonCognitoUserPools, apiKey: nil, userPoolToken: pool.tokenSource)
                try server.control("fail", ["status": "401", "count": "1", "errorType": "UnauthorizedException", "message": "Token has expired."])
                #expect(try await whoAmI(fixture).username == "alice")
                #expect(pool.refreshes.value == [false, true])
                #expect(try server.state()["graphqlRequests"] == 2)
                try server.control("fail", ["status": "401", "count": "2", "errorType": "UnauthorizedException", "message": "Token has expired."])
                let error = await #expect(throws: APIError.self) { try await whoAmI(fixture) }
                guard case .httpStatusError(401, _)? = error else {
                    Issue.record("expected a 401, got \(String(describing: error))")
                    return
                }
                #expect(pool.refreshes.value == [false, true, false, true])
                #expect(try server.state()["graphqlRequests"] == 4)
                try await fixture.close()
            }
            try await pool.close()
        }
    }

    @Test("a token that is not the pool's is refused with 401; signed out, the Auth error comes back as APIError.pluginError")
    func forgedTokenAndSignedOut() async throws {
        try await MotoServer.with { moto in
            let pool = try await Pool(moto: moto)
            try await AppSyncServer.with(pool.serverOptions(moto)) { server in
                let forged = try APIFixture(
                    server: server, mode: .amazonCognitoUserPools, apiKey: nil,
                    userPoolToken: { _ in
                        "eyJhbGciOiJSUzI1NiIsImtpZCI6ImZvcmdlZCJ9.eyJzdWIiOiJtYWxsb3J5In0.c2lnbmF0dXJl"
                    })
                let refused = await #expect(throws: APIError.self) { try await whoAmI(forged) }
                guard case .httpStatusError(401, _)? = refused else {
                    Issue.record("expected a 401, got \(String(describing: refused))")
                    return
                }
                try await forged.close()
                _ = await pool.cognito.signOut(options: nil)
                let fixture = try APIFixture(server: server, mode: .amazonCognitoUserPools, apiKey: nil, userPoolToken: pool.tokenSource)
                let signedOut = await #expect(throws: APIError.self) { try await whoAmI(fixture) }
                guard case .pluginError(let underlying)? = signedOut else {
                    Issue.record("expected a plugin error, got \(String(describing: signedOut))")
                    return
                }
                #expect(underlying is AuthError)
                try await fixture.close()
            }
            try await pool.close()
        }
    }

    @Test("AWS_IAM with the identity pool's credentials through AuthPluginCredentialsProvider (the default chain's first source) is accepted")
    func identityPoolCredentialsSign() async throws {
        try await MotoServer.with { moto in
            let pool = try await Pool(moto: moto, identityPool: true, signIn: false)
            let provider = AuthPluginCredentialsProvider(plugins: { [pool] in [pool.cognito] })
            let guest = try await provider.credentials()
            #expect(guest.sessionToken != nil)
            try await AppSyncServer.with { server in  // IAM keys come from the control endpoint below
                var keys: [String: JSONValue] = ["accessKeyId": .string(guest.accessKeyId), "secretAccessKey": .string(guest.secretAccessKey)]
                keys["sessionToken"] = guest.sessionToken.map(JSONValue.string)
                try server.control("iam-credentials", body: .object(keys))
                let fixture = try APIFixture(server: server, mode: .awsIAM, apiKey: nil, credentialsProvider: provider)
                let identity = try await whoAmI(fixture)
                #expect(identity.authMode == "AWS_IAM")
                #expect(identity.username == guest.accessKeyId)
                try await fixture.close()
            }
            try await pool.close()
        }
    }

    @Test("a subscription with the user's token: the socket and the start are authorized by it, and the user's mutations arrive")
    func userPoolSubscription() async throws {
        try await MotoServer.with { moto in
            let pool = try await Pool(moto: moto)
            try await AppSyncServer.with(pool.serverOptions(moto)) { server in
                let fixture = try APIFixture(server: server, mode: .amazonCognitoUserPools, apiKey: nil, userPoolToken: pool.tokenSource)
                let subscription = SubscriptionCollector(
                    fixture.plugin.subscribe(
                        request: GraphQLRequest(
                            document: Documents.onCreate, variables: ["name": "mine"], responseType: Todo.self, decodePath: "onCreateTodo")))
                #expect(await subscription.connected())
                try await fixture.create("mine")
                #expect(await subscription.wait { $0.values.count == 1 })
                subscription.cancel()
                try await fixture.close()
            }
            try await pool.close()
        }
    }
}

extension CognitoUserPoolTests {
    @Test(
        "inside a server context the plugin's default token source (Amplify.Auth) sends the context user's access token; outside it nobody is signed in"
    )
    func serverContextUserIsSent() async throws {
        try await MotoServer.with { moto in
            let pool = try await Pool(moto: moto, signIn: false)
            try await AppSyncServer.with(pool.serverOptions(moto)) { server in
                let fixture = try APIFixture(
                    server: server, mode: .amazonCognitoUserPools, apiKey: nil, userPoolToken: APIAuthSources.userPoolToken())
                let context = try pool.cognito.emptyServerContext()
                _ = try await context.run { try await Amplify.Auth.signIn(username: "alice", password: "Secr3t!pass") }
                let identity = try await context.run { try await whoAmI(fixture) }
                #expect(identity.username == "alice")
                await #expect(throws: (any Error).self) { _ = try await whoAmI(fixture) }
                try await fixture.close()
            }
            try await pool.close()
        }
    }
}
