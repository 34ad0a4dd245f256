import Amplify
import AmplifyAuthCore
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import LocalAuthPlugin

/// A user pool in a temporary folder, with a Hub and loop of its own so the tests run in
/// parallel without touching Amplify's globals (shared by LocalAuthPluginTests and
/// AmplifyAuthCoreTests).
public final class LocalPoolFixture: Sendable {
    public let folder: String
    public let loop: EventLoop
    public let hub: DefaultHubPlugin
    public let events: HubEventRecorder
    public let settings: JSONValue

    public init(_ overrides: [String: JSONValue] = [:]) throws {
        folder = NSTemporaryDirectory() + "local-auth-\(UUID().uuidString)"
        loop = try EventLoop(name: "auth-test")
        hub = DefaultHubPlugin(loop: loop)
        events = HubEventRecorder(channel: .auth, hub: hub)
        var block: [String: JSONValue] = ["directory": .string(folder), "passwordHashCost": 1024]
        for (key, value) in overrides { block[key] = value }
        settings = .object(block)
    }

    /// A plugin on this pool (several act like several processes sharing the files).
    public func plugin() throws -> LocalAuthPlugin {
        let plugin = LocalAuthPlugin(hub: hub, eventLoop: loop)
        try plugin.configure(using: settings)
        return plugin
    }

    /// A plugin on this pool with a credential store of its own (another machine's sessions).
    public func plugin(store: String) throws -> LocalAuthPlugin {
        guard case .object(var block) = settings else { return try plugin() }
        block["credentialStore"] = .string(folder + "/" + store)
        let plugin = LocalAuthPlugin(hub: hub, eventLoop: loop)
        try plugin.configure(using: JSONValue.object(block))
        return plugin
    }

    /// The newest code the outbox holds for `username`.
    public func latestCode(_ plugin: LocalAuthPlugin, for username: String) async throws -> String {
        try await plugin.outbox(for: username).last?.code ?? ""
    }

    /// The event names seen so far (after delivering everything dispatched).
    public func eventNames() async -> [String] {
        await hub.flush()
        return events.eventNames
    }

    public func close(_ plugins: LocalAuthPlugin...) async throws {
        for plugin in plugins { await plugin.reset() }
        await hub.reset()
        try loop.shutdown()
        try? FileManager.default.removeItem(atPath: folder)
    }
}

/// Signs `username` up with an email, confirms with the outbox code, and signs in.
@discardableResult
public func signUpAndIn(_ plugin: LocalAuthPlugin, _ fixture: LocalPoolFixture, _ username: String, password: String = "Passw0rd!") async throws
    -> AuthSignInResult
{
    _ = try await plugin.signUp(
        username: username, password: password,
        options: AuthSignUpRequest.Options(userAttributes: [AuthUserAttribute(.email, value: "\(username)@example.com")]))
    _ = try await plugin.confirmSignUp(for: username, confirmationCode: try await fixture.latestCode(plugin, for: username), options: nil)
    return try await plugin.signIn(username: username, password: password, options: nil)
}
