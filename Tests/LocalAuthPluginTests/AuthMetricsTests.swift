import Amplify
import AmplifyAuthCore
import AmplifyConcurrency
import AmplifyEventLoop
import Foundation
import MetricsTestKit
import Testing

/// The Auth metrics AmplifyAuthCore keeps for both Auth plugins, on a keeper and a reporter of
/// their own (a scripted refresh, a Hub on a loop of its own).
@Suite("Auth metrics")
struct AuthMetricsTests {
    private static func session(_ refreshToken: String, expiresIn seconds: TimeInterval = 3600) -> StoredSession {
        StoredSession(
            username: "alice", userId: "u1", idToken: "id", accessToken: "access-\(refreshToken)", refreshToken: refreshToken,
            accessTokenExpiresAt: Date(timeIntervalSinceNow: seconds), refreshTokenExpiresAt: nil)
    }

    @Test("refreshes, refresh failures by reason and session expiries are counted per plugin")
    func refreshesFailuresExpiries() async throws {
        let metrics = TestMetrics()
        let loop = try EventLoop(name: "auth-metrics")
        let hub = DefaultHubPlugin(loop: loop)
        let script = Locked<[Result<StoredSession, AuthError>]>([
            .success(Self.session("r2")),
            .failure(.service("The service is down.", "Try later.")),
            .failure(.sessionExpired("The refresh token was revoked.", "Sign in again.")),
        ])
        let keeper = AuthSessionKeeper(
            pluginKey: "testAuthPlugin", refreshLead: 0, hub: { hub }, eventLoop: { loop }, metricsFactory: metrics
        ) { _ in
            try script.withLock { $0.removeFirst() }.get()
        }
        try await keeper.start(Self.session("r1"))
        try await keeper.refresh()
        await #expect(throws: AuthError.self) { try await keeper.refresh() }
        #expect(await keeper.current != nil)
        await #expect(throws: AuthError.self) { try await keeper.refresh() }
        #expect(await keeper.current == nil)
        let plugin = [("plugin", "testAuthPlugin")]
        #expect(try metrics.expectCounter(AmplifyMetrics.authRefreshes, plugin).totalValue == 1)
        #expect(try metrics.expectCounter(AmplifyMetrics.authRefreshFailures, plugin + [("reason", "unreachable")]).totalValue == 1)
        #expect(try metrics.expectCounter(AmplifyMetrics.authRefreshFailures, plugin + [("reason", "refused")]).totalValue == 1)
        #expect(try metrics.expectCounter(AmplifyMetrics.authSessionExpiries, plugin).totalValue == 1)
        await keeper.shutdown()
        await hub.reset()
        try loop.shutdown()
    }

    @Test("sign-in calls are counted by result: success, challenge (a next step), failure; other calls are not")
    func signIns() async throws {
        let metrics = TestMetrics()
        let loop = try EventLoop(name: "auth-metrics")
        let hub = DefaultHubPlugin(loop: loop)
        let reporter = AuthEventReporter(pluginKey: "testAuthPlugin", hub: { hub }, metricsFactory: metrics) { error, _ in
            AuthError.unknown("\(error)", error)
        }
        let signInAPI = HubPayload.EventName.Auth.signInAPI
        _ = try await reporter.report(signInAPI, username: "alice") { AuthSignInResult(nextStep: .done) }
        _ = try await reporter.report(signInAPI, username: "alice") { AuthSignInResult(nextStep: .confirmSignInWithNewPassword(nil)) }
        _ = try await reporter.report(HubPayload.EventName.Auth.confirmSignInAPI, username: nil) { AuthSignInResult(nextStep: .done) }
        await #expect(throws: AuthError.self) {
            _ = try await reporter.report(signInAPI, username: "alice") { () throws -> AuthSignInResult in
                throw AuthError.notAuthorized("Incorrect username or password.", "Check them.")
            }
        }
        _ = try await reporter.report(HubPayload.EventName.Auth.fetchSessionAPI, username: nil) { "not a sign-in" }
        let plugin = [("plugin", "testAuthPlugin")]
        #expect(try metrics.expectCounter(AmplifyMetrics.authSignIns, plugin + [("result", "success")]).totalValue == 2)
        #expect(try metrics.expectCounter(AmplifyMetrics.authSignIns, plugin + [("result", "challenge")]).totalValue == 1)
        #expect(try metrics.expectCounter(AmplifyMetrics.authSignIns, plugin + [("result", "failure")]).totalValue == 1)
        await hub.reset()
        try loop.shutdown()
    }
}
