import Amplify
import AmplifyAuthCore
import AmplifyTestKit
import Foundation
import LocalAuthPlugin
import LocalAuthTestSupport
import Testing

/// The session store on the local pool: sessions the server holds for many users.
@Suite("Session store on the local pool")
struct SessionStoreTests {
    static func signUp(_ plugin: LocalAuthPlugin, _ fixture: LocalPoolFixture, _ username: String) async throws {
        _ = try await plugin.signUp(
            username: username, password: "Passw0rd!",
            options: AuthSignUpRequest.Options(userAttributes: [AuthUserAttribute(.email, value: "\(username)@example.com")]))
        _ = try await plugin.confirmSignUp(for: username, confirmationCode: try await fixture.latestCode(plugin, for: username), options: nil)
    }

    static func hold(_ store: AuthSessionStore, _ plugin: LocalAuthPlugin, _ username: String) async throws {
        let context = try await store.newContext()
        let result = try await context.run { try await Amplify.Auth.signIn(username: username, password: "Passw0rd!") }
        #expect(result.isSignedIn)
    }

    /// The `.held` events of `name` seen so far, by username.
    static func held(_ fixture: LocalPoolFixture, _ name: String) async -> [String] {
        await fixture.hub.flush()
        return fixture.events.payloads.filter { $0.eventName == name }.compactMap { $0.data as? AuthUserEvent }.filter { $0.scope == .held }.map(
            \.username)
    }

    /// Waits (without holding a thread) until `condition` holds, at most `seconds`.
    static func eventually(_ seconds: Double = 20, _ condition: () async -> Bool) async throws -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return await condition()
    }

    @Test(
        "a sign-in in a store context holds the session: the timer refreshes it before expiry, it survives a restart in a 0600 file, and sign-out ends it"
    )
    func heldSessionLifecycle() async throws {
        let fixture = try LocalPoolFixture(["accessTokenLifetimeSeconds": 2])
        let plugin = try fixture.plugin()
        try await Self.signUp(plugin, fixture, "alice")
        let path = fixture.folder + "/held.sqlite"
        let store = try AuthSessionStore(plugin: plugin, credentialStorePath: path, eventLoop: { fixture.loop })
        try await store.open()
        try await Self.hold(store, plugin, "alice")
        #expect(await store.usernames == ["alice"])
        #expect(await Self.held(fixture, HubPayload.EventName.Auth.signedIn) == ["alice"])
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // Nobody is signed in process-wide.
        #expect(await authError { _ = try await plugin.getCurrentUser() } != nil)

        let before = try #require(await store.context(for: "alice")?.session.current)
        #expect(try await Self.eventually { await store.context(for: "alice")?.session.current?.accessToken != before.accessToken })
        #expect(await Self.held(fixture, HubPayload.EventName.Auth.tokenRefreshed).first == "alice")
        let after = try #require(await store.context(for: "alice")?.session.current)
        #expect(after.accessTokenExpiresAt > Date())
        await store.shutdown()

        let restarted = try AuthSessionStore(plugin: plugin, credentialStorePath: path, eventLoop: { fixture.loop })
        try await restarted.open()
        let context = try #require(await restarted.context(for: "alice"))
        #expect(try await context.run { try await Amplify.Auth.getCurrentUser().username } == "alice")
        _ = await context.run { await Amplify.Auth.signOut() }
        #expect(await restarted.count == 0)
        #expect(await Self.held(fixture, HubPayload.EventName.Auth.signedOut) == ["alice"])
        await restarted.shutdown()
        let third = try AuthSessionStore(plugin: plugin, credentialStorePath: path, eventLoop: { fixture.loop })
        try await third.open()
        #expect(await third.count == 0)
        await third.shutdown()
        try await fixture.close(plugin)
    }

    @Test("a refresh token revoked elsewhere ends that user's held session alone: tokenRefreshFailed, then one sessionExpired naming the user")
    func revokedElsewhere() async throws {
        let fixture = try LocalPoolFixture(["accessTokenLifetimeSeconds": 2])
        let plugin = try fixture.plugin()
        for name in ["alice", "bob"] { try await Self.signUp(plugin, fixture, name) }
        let store = try AuthSessionStore(plugin: plugin, credentialStorePath: nil, eventLoop: { fixture.loop })
        try await Self.hold(store, plugin, "alice")
        try await Self.hold(store, plugin, "bob")
        // Alice signs out everywhere from a browser's request: every refresh token of hers is revoked.
        let browser = try plugin.emptyServerContext()
        _ = try await browser.run { try await plugin.signIn(username: "alice", password: "Passw0rd!", options: nil) }
        _ = await browser.run { await plugin.signOut(options: AuthSignOutRequest.Options(globalSignOut: true)) }

        #expect(try await Self.eventually { await Self.held(fixture, HubPayload.EventName.Auth.sessionExpired) == ["alice"] })
        #expect(try await Self.eventually { await Self.held(fixture, HubPayload.EventName.Auth.tokenRefreshed).filter { $0 == "bob" }.count >= 2 })
        #expect(await Self.held(fixture, HubPayload.EventName.Auth.sessionExpired) == ["alice"])
        #expect(await Self.held(fixture, HubPayload.EventName.Auth.tokenRefreshFailed) == ["alice"])
        let names = await fixture.eventNames()
        let failed = try #require(names.firstIndex(of: HubPayload.EventName.Auth.tokenRefreshFailed))
        let expired = try #require(names.firstIndex(of: HubPayload.EventName.Auth.sessionExpired))
        #expect(failed < expired)
        #expect(await store.usernames == ["bob"])
        await store.shutdown()
        try await fixture.close(plugin)
    }

    @Test("refreshes due at once run at most maxConcurrentRefreshes at a time, and every session is refreshed")
    func concurrencyCap() async throws {
        let fixture = try LocalPoolFixture(["accessTokenLifetimeSeconds": 2])
        let plugin = try fixture.plugin()
        let store = try AuthSessionStore(
            plugin: plugin, credentialStorePath: nil, settings: .init(refreshLead: 60, jitter: 0, maxConcurrentRefreshes: 2),
            eventLoop: { fixture.loop })
        let names = (0..<12).map { "user\($0)" }
        for name in names {
            try await Self.signUp(plugin, fixture, name)
            try await Self.hold(store, plugin, name)
        }
        #expect(try await Self.eventually { Set(await Self.held(fixture, HubPayload.EventName.Auth.tokenRefreshed)) == Set(names) })
        let peak = await store.peakConcurrentRefreshes
        #expect(peak >= 1 && peak <= 2)
        await store.shutdown()
        try await fixture.close(plugin)
    }

    @Test("AuthSessionState follows one user's server sessions, and the set of held users, while the process-wide status stays its own")
    func observableState() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        for name in ["alice", "bob"] { try await Self.signUp(plugin, fixture, name) }
        let everyone = AuthSessionState(hub: fixture.hub)
        let bob = AuthSessionState(hub: fixture.hub, following: "bob")
        let store = try AuthSessionStore(plugin: plugin, credentialStorePath: nil, eventLoop: { fixture.loop })
        try await Self.hold(store, plugin, "alice")
        try await Self.hold(store, plugin, "bob")
        await fixture.hub.flush()
        #expect(try await Self.eventually { await everyone.heldUsers.map(\.username).sorted() == ["alice", "bob"] })
        #expect(try await Self.eventually { await bob.status.isSignedIn })
        #expect(await everyone.status == .signedOut(.initial))
        let context = try #require(await store.context(for: "bob"))
        _ = await context.run { await Amplify.Auth.signOut() }
        #expect(try await Self.eventually { await bob.status == .signedOut(.signedOut) })
        #expect(try await Self.eventually { await everyone.heldUsers.map(\.username) == ["alice"] })
        #expect(await everyone.status == .signedOut(.initial))
        await everyone.stop()
        await bob.stop()
        await store.shutdown()
        try await fixture.close(plugin)
    }

    @Test("deleting the user in a held context ends that session: Auth.userDeleted names the user, the store forgets it")
    func deletionEndsHeldSession() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        for name in ["alice", "bob"] { try await Self.signUp(plugin, fixture, name) }
        let store = try AuthSessionStore(plugin: plugin, credentialStorePath: fixture.folder + "/held.sqlite", eventLoop: { fixture.loop })
        try await store.open()
        try await Self.hold(store, plugin, "alice")
        try await Self.hold(store, plugin, "bob")
        let alice = try #require(await store.context(for: "alice"))
        let sub = try #require(alice.user?.userId)
        try await alice.run { try await Amplify.Auth.deleteUser() }
        #expect(await store.usernames == ["bob"])
        await fixture.hub.flush()
        let deleted = fixture.events.payloads.first { $0.eventName == HubPayload.EventName.Auth.userDeleted }?.data as? AuthUserEvent
        #expect(deleted?.username == "alice")
        #expect(deleted?.sub == sub)
        #expect(deleted?.scope == .held)
        await store.shutdown()
        let reopened = try AuthSessionStore(plugin: plugin, credentialStorePath: fixture.folder + "/held.sqlite", eventLoop: { fixture.loop })
        try await reopened.open()
        #expect(await reopened.usernames == ["bob"])
        await reopened.shutdown()
        try await fixture.close(plugin)
    }
}
