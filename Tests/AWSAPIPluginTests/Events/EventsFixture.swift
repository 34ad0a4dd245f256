import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import AmplifyEventLoop
import AmplifyTestKit
import Foundation

/// A loop and an API plugin of the test's own with one Events API named `chat` pointed at an
/// AppSync Events stand-in.
final class EventsFixture: Sendable {
    static let iamKey = AWSCredentials(accessKeyId: "AKIDEVENTSTEST", secretAccessKey: "events-test-secret")

    let loop: EventLoop
    let hub: DefaultHubPlugin
    let plugin: AWSAPIPlugin

    init(
        server: AppSyncEventsServer, mode: AWSAuthorizationType = .apiKey, apiKey: String? = "da2-test",
        credentials: AWSCredentials = EventsFixture.iamKey, factory: APIAuthProviderFactory = APIAuthProviderFactory(),
        options: AWSAPIPlugin.Options = AWSAPIPlugin.Options(reconnect: RealtimeReconnectPolicy(baseDelay: .milliseconds(50)))
    ) throws {
        loop = try EventLoop(name: "events-test")
        hub = DefaultHubPlugin(loop: loop)
        plugin = AWSAPIPlugin(
            apiAuthProviderFactory: factory, loop: loop, hub: hub, credentials: StaticCredentialsProvider(credentials),
            userPoolToken: { _ in "user-pool-token-1" }, options: options)
        try plugin.configure(endpoints: [
            APIEndpointConfiguration(
                name: "chat", endpointType: .events, endpoint: server.httpEndpoint, region: "us-east-1", authorizationType: mode, apiKey: apiKey)
        ])
    }

    var events: AppSyncEvents { plugin.events }

    func close() async throws {
        await plugin.reset()
        await hub.reset()
        try loop.shutdown()
    }
}

extension AppSyncEventsServer.Options {
    /// Every auth mode, with the fixture's credentials.
    static let everyMode = AppSyncEventsServer.Options(
        iamKeys: [(EventsFixture.iamKey.accessKeyId, EventsFixture.iamKey.secretAccessKey, nil)], userPoolTokens: ["user-pool-token-1"],
        oidcTokens: ["oidc-token-1"], lambdaTokens: ["lambda-token-1"], namespaces: ["default", "other"])
}
