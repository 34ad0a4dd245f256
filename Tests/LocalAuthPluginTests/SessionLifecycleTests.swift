import Amplify
import AmplifyAuthCore
import AmplifyTestKit
import Foundation
import LocalAuthPlugin
import LocalAuthTestSupport
import Testing

@Suite("Local auth: sessions")
struct SessionLifecycleTests {
    @Test("a new plugin on the same files finds the user already signed in (as a new process would)")
    func sessionSurvivesRestart() async throws {
        let fixture = try LocalPoolFixture()
        let first = try fixture.plugin()
        try await signUpAndIn(first, fixture, "ivy")
        await first.reset()
        let second = try fixture.plugin()
        let session = try await second.fetchAuthSession(options: nil)
        #expect(session.isSignedIn)
        #expect(try await second.getCurrentUser().username == "ivy")
        try await fixture.close(second)
    }

    @Test("at access-token expiry the timer refreshes the session quietly, rotating the refresh token")
    func timerRefreshes() async throws {
        let fixture = try LocalPoolFixture(["accessTokenLifetimeSeconds": 1])
        let plugin = try fixture.plugin()
        try await signUpAndIn(plugin, fixture, "jack")
        let before = try #require(try await plugin.fetchAuthSession(options: nil) as? LocalAuthSession)
        try await Task.sleep(for: .milliseconds(1_100))
        // The expiry timer refreshes on its own; a loaded machine may take a while to run it.
        var after = try #require(try await plugin.fetchAuthSession(options: nil) as? LocalAuthSession)
        let deadline = ContinuousClock.now + .seconds(30)
        while after.tokens?.accessToken == before.tokens?.accessToken, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            after = try #require(try await plugin.fetchAuthSession(options: nil) as? LocalAuthSession)
        }
        #expect(after.isSignedIn)
        #expect(after.tokens?.accessToken != before.tokens?.accessToken)
        #expect(!(await fixture.eventNames()).contains("Auth.sessionExpired"))
        try await fixture.close(plugin)
    }

    @Test("revoked elsewhere: the expiry timer fires Auth.sessionExpired exactly once, and calls then fail with sessionExpired")
    func sessionExpiresOnItsOwn() async throws {
        let fixture = try LocalPoolFixture(["accessTokenLifetimeSeconds": 1])
        let server = try fixture.plugin()
        try await signUpAndIn(server, fixture, "kim")
        // Another device signs the same user in and out everywhere.
        let other = LocalAuthPlugin(hub: fixture.hub, eventLoop: fixture.loop)
        var otherSettings = fixture.settings.asObject ?? [:]
        otherSettings["credentialStore"] = .string(fixture.folder + "/other.sqlite")
        try other.configure(using: JSONValue.object(otherSettings))
        _ = try await other.signIn(username: "kim", password: "Passw0rd!", options: nil)
        _ = await other.signOut(options: AuthSignOutRequest.Options(globalSignOut: true))
        // No call is made: the timer notices on its own (within the token's second, plus however
        // long a loaded machine takes to run the refresh).
        let deadline = ContinuousClock.now + .seconds(60)
        while !(await fixture.eventNames()).contains("Auth.sessionExpired"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let names = await fixture.eventNames()
        #expect(names.filter { $0 == "Auth.sessionExpired" }.count == 1)
        let failure = await authError { _ = try await server.getCurrentUser() }
        guard case .sessionExpired = failure else {
            Issue.record("\(String(describing: failure))")
            return
        }
        #expect(try await server.fetchAuthSession(options: nil).isSignedIn == false)
        try await Task.sleep(for: .milliseconds(1_200))
        #expect(await fixture.eventNames().filter { $0 == "Auth.sessionExpired" }.count == 1)
        await other.reset()
        try await fixture.close(server)
    }

    @Test("refreshing does not stretch the session: at the refresh token's end, Auth.sessionExpired fires once")
    func absoluteSessionLifetime() async throws {
        // A 15 s session of 1 s access tokens: room for a loaded machine (ThreadSanitizer, the whole
        // suite in parallel) between the first refresh and the session's end.
        let fixture = try LocalPoolFixture(["accessTokenLifetimeSeconds": 1, "refreshTokenLifetimeSeconds": 15])
        let plugin = try fixture.plugin()
        try await signUpAndIn(plugin, fixture, "quinn")
        try await Task.sleep(for: .milliseconds(1_500))
        // Past the first access token's life (refreshed), still inside the 15 s session.
        #expect(try await plugin.fetchAuthSession(options: nil).isSignedIn)
        let deadline = ContinuousClock.now + .seconds(30)
        while !(await fixture.eventNames()).contains("Auth.sessionExpired"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        try await Task.sleep(for: .milliseconds(500))
        #expect(await fixture.eventNames().filter { $0 == "Auth.sessionExpired" }.count == 1)
        #expect(try await plugin.fetchAuthSession(options: nil).isSignedIn == false)
        try await fixture.close(plugin)
    }

    @Test("sign-out ends the session and revokes its refresh token; calls afterwards fail with signedOut")
    func signOut() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        try await signUpAndIn(plugin, fixture, "lee")
        let result = await plugin.signOut(options: nil) as? LocalSignOutResult
        #expect(result?.signedOutLocally == true)
        #expect(result?.revokedTokens == true)
        #expect(await fixture.eventNames().suffix(2) == ["Auth.signOutAPI", "Auth.signedOut"])
        let failure = await authError { _ = try await plugin.fetchUserAttributes(options: nil) }
        guard case .signedOut = failure else {
            Issue.record("\(String(describing: failure))")
            return
        }
        #expect(try await plugin.fetchAuthSession(options: nil).isSignedIn == false)
        let again = await plugin.signOut(options: nil) as? LocalSignOutResult
        #expect(again?.message == "Nobody was signed in.")
        try await fixture.close(plugin)
    }

    @Test("attributes: read with sub, updated one and several, sub cannot change")
    func attributes() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        try await signUpAndIn(plugin, fixture, "mia")
        let initial = try await plugin.fetchUserAttributes(options: nil)
        #expect(initial.contains(AuthUserAttribute(.email, value: "mia@example.com")))
        #expect(initial.contains { $0.key == .sub })
        #expect(try await plugin.update(userAttribute: AuthUserAttribute(.name, value: "Mia"), options: nil).isUpdated)
        let results = try await plugin.update(
            userAttributes: [AuthUserAttribute(.givenName, value: "M"), AuthUserAttribute(.custom("plan"), value: "pro")], options: nil)
        #expect(results.count == 2)
        let updated = try await plugin.fetchUserAttributes(options: nil)
        #expect(updated.contains(AuthUserAttribute(.name, value: "Mia")))
        #expect(updated.contains(AuthUserAttribute(.custom("plan"), value: "pro")))
        let sub = await authError { _ = try await plugin.update(userAttribute: AuthUserAttribute(.sub, value: "x"), options: nil) }
        guard case .validation = sub else {
            Issue.record("\(String(describing: sub))")
            return
        }
        try await fixture.close(plugin)
    }

    @Test("change password needs the old one; reset password by code ends every session")
    func passwords() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        try await signUpAndIn(plugin, fixture, "ned")
        let wrongOld = await authError { try await plugin.update(oldPassword: "Wrong0ne!", to: "N3wPassword", options: nil) }
        guard case .notAuthorized = wrongOld else {
            Issue.record("\(String(describing: wrongOld))")
            return
        }
        try await plugin.update(oldPassword: "Passw0rd!", to: "N3wPassword", options: nil)
        _ = await plugin.signOut(options: nil)
        _ = try await plugin.signIn(username: "ned", password: "N3wPassword", options: nil)

        let reset = try await plugin.resetPassword(for: "ned", options: nil)
        guard case .confirmResetPasswordWithCode(let details, _) = reset.nextStep else {
            Issue.record("\(reset.nextStep)")
            return
        }
        #expect(details.destination == .email("n***@e***.com"))
        let message = try #require(try await plugin.outbox(for: "ned").last)
        #expect(message.purpose == .resetPassword)
        try await plugin.confirmResetPassword(for: "ned", with: "Res3tPassword", confirmationCode: message.code, options: nil)
        // The reset revoked the open session: the next refresh fails.
        #expect(try await plugin.fetchAuthSession(options: .forceRefresh()).isSignedIn == false)
        _ = try await plugin.signIn(username: "ned", password: "Res3tPassword", options: nil)
        #expect(try await plugin.getCurrentUser().username == "ned")
        try await fixture.close(plugin)
    }

    @Test("delete user: Auth.userDeleted, the session ends, the user can no longer sign in")
    func deleteUser() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        try await signUpAndIn(plugin, fixture, "ola")
        try await plugin.deleteUser()
        #expect(await fixture.eventNames().suffix(2) == ["Auth.deleteUserAPI", "Auth.userDeleted"])
        let gone = await authError { _ = try await plugin.signIn(username: "ola", password: "Passw0rd!", options: nil) }
        guard case .notAuthorized = gone else {
            Issue.record("\(String(describing: gone))")
            return
        }
        let signedOut = await authError { try await plugin.deleteUser() }
        guard case .signedOut = signedOut else {
            Issue.record("\(String(describing: signedOut))")
            return
        }
        try await fixture.close(plugin)
    }
}
