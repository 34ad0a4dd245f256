import AWSCognitoAuthPlugin
import Amplify
import AmplifyEventLoop
import AmplifyTestKit
import Foundation

/// A moto user pool (and optionally an identity pool) with a Hub and loop of the test's own, and
/// plugins configured from a CLI-shaped block pointing at moto through `Endpoint`.
final class CognitoFixture: Sendable {
    let moto: MotoServer
    let seeded: JSONValue
    let loop: EventLoop
    let hub: DefaultHubPlugin
    let events: HubEventRecorder
    let folder: String

    init(moto: MotoServer, pool: JSONValue, identityPool: Bool = false) throws {
        self.moto = moto
        var spec: [String: JSONValue] = ["userPool": pool]
        if identityPool { spec["identityPool"] = ["name": "identities", "allowGuests": true] }
        seeded = try moto.seed(.object(spec))
        loop = try EventLoop(name: "cognito-test")
        hub = DefaultHubPlugin(loop: loop)
        events = HubEventRecorder(channel: .auth, hub: hub)
        folder = NSTemporaryDirectory() + "cognito-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    var poolId: String { seeded["userPoolId"]?.stringValue ?? "" }
    var clientId: String { seeded["clientId"]?.stringValue ?? "" }

    /// The block the Amplify CLI writes, pointed at moto; `store` names the credential store (one
    /// per simulated process).
    func block(store: String = "credentials.sqlite", flow: String = "USER_SRP_AUTH", extra: [String: JSONValue] = [:]) -> JSONValue {
        var pool: [String: JSONValue] = [
            "PoolId": .string(poolId), "AppClientId": .string(clientId), "Region": "us-east-1",
            "Endpoint": .string(moto.endpoint.absoluteString),
        ]
        if let secret = seeded["clientSecret"]?.stringValue { pool["AppClientSecret"] = .string(secret) }
        var block: [String: JSONValue] = [
            "IdentityManager": ["Default": [:]],
            "CognitoUserPool": ["Default": .object(pool)],
            "Auth": ["Default": ["authenticationFlowType": .string(flow)]],
            "credentialStore": .string(folder + "/" + store),
        ]
        if let identityPool = seeded["identityPoolId"]?.stringValue {
            block["CredentialsProvider"] = [
                "CognitoIdentity": [
                    "Default": [
                        "PoolId": .string(identityPool), "Region": "us-east-1", "Endpoint": .string(moto.endpoint.absoluteString),
                    ]
                ]
            ]
        }
        for (key, value) in extra { block[key] = value }
        return .object(block)
    }

    func plugin(store: String = "credentials.sqlite", flow: String = "USER_SRP_AUTH", extra: [String: JSONValue] = [:]) throws -> AWSCognitoAuthPlugin
    {
        let plugin = AWSCognitoAuthPlugin(hub: hub, loop: loop, environment: [:])
        try plugin.configure(using: block(store: store, flow: flow, extra: extra))
        return plugin
    }

    func eventNames() async -> [String] {
        await hub.flush()
        return events.eventNames
    }

    func close(_ plugins: AWSCognitoAuthPlugin...) async throws {
        for plugin in plugins { await plugin.reset() }
        await hub.reset()
        try loop.shutdown()
        try? FileManager.default.removeItem(atPath: folder)
    }
}

let alice: JSONValue = ["username": "alice", "password": "Secr3t!pass", "attributes": ["email": "alice@example.com"]]
