import Amplify
import AmplifyAuthCore
import AmplifyConcurrency
import AmplifyCrypto
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import LocalAuthPlugin
import LocalAuthTestSupport
import Testing

@testable import AmplifyFleet

/// Session stores of several instances sharing one local pool (its files) and one redis-server:
/// each instance has its own Hub, plugin, fleet connection and store, as separate processes would.
/// The local pool rotates refresh tokens, so a session refreshed twice with one token would end.
@Suite("Fleet session stores", .serialized)
struct FleetSessionStoreTests {
    /// One instance of the fleet.
    final class Instance: Sendable {
        let name: String
        let hub: DefaultHubPlugin
        let events: HubEventRecorder
        let plugin: LocalAuthPlugin
        let fleet: AuthFleet
        let store: AuthSessionStore

        init(_ name: String, _ fixture: LocalPoolFixture, redisPort: Int, key: [UInt8], lease: Duration = .seconds(2)) throws {
            self.name = name
            hub = DefaultHubPlugin(loop: fixture.loop)
            events = HubEventRecorder(channel: .auth, hub: hub)
            plugin = LocalAuthPlugin(hub: hub, eventLoop: fixture.loop)
            try plugin.configure(using: fixture.settings)
            fleet = try AuthFleet(
                configuration: .init(port: redisPort, encryptionKey: key, instance: name, leaseDuration: lease), eventLoop: fixture.loop, hub: hub)
            store = try AuthSessionStore(plugin: plugin, fleet: fleet, settings: .init(refreshLead: 60, jitter: 0.3, retryDelay: 0.2))
        }

        /// The user events named `name` dispatched here: (username, relayed from another instance).
        func seen(_ name: String) async -> [(String, Bool)] {
            await hub.flush()
            return events.payloads.filter { $0.eventName == name }.compactMap { payload in
                (payload.data as? AuthUserEvent).map { ($0.username, payload.context is RemoteHubEvent) }
            }
        }

        func local(_ name: String) async -> [String] { await seen(name).filter { !$0.1 }.map(\.0) }
        func remote(_ name: String) async -> [String] { await seen(name).filter { $0.1 }.map(\.0) }

        func signIn(_ username: String) async throws {
            let context = try await store.newContext()
            let result = try await context.run { try await Amplify.Auth.signIn(username: username, password: "Passw0rd!") }
            #expect(result.isSignedIn)
        }

        func close() async {
            await store.shutdown()
            await fleet.close()
            await plugin.reset()
            await hub.reset()
        }
    }

    static func eventually(_ seconds: Double = 20, _ condition: () async -> Bool) async throws -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return await condition()
    }

    /// A redis-server, a local pool with `lifetime` s access tokens, and the fleet's key: what
    /// every test here starts with; ``instances(_:lease:)`` makes and opens instances on them.
    struct Fleet {
        let redis: RedisServer
        let fixture: LocalPoolFixture
        let key: [UInt8]

        init(lifetime: Int) async throws {
            redis = try await RedisServer.launch()
            fixture = try LocalPoolFixture(["accessTokenLifetimeSeconds": .number(Double(lifetime))])
            key = try Digest.randomBytes(32)
        }

        func instances(_ names: [String], lease: Duration = .seconds(2)) async throws -> [Instance] {
            let made = try names.map { try Instance($0, fixture, redisPort: redis.port, key: key, lease: lease) }
            for instance in made { try await instance.store.open() }
            return made
        }

        /// Closes `instances`, the pool's loop and folder (the test's `defer` stops Redis).
        func close(_ instances: [Instance]) async throws {
            for instance in instances { await instance.close() }
            try fixture.loop.shutdown()
            try? FileManager.default.removeItem(atPath: fixture.folder)
        }
    }

    static func signUp(_ plugin: LocalAuthPlugin, _ fixture: LocalPoolFixture, _ names: [String]) async throws {
        for name in names {
            _ = try await plugin.signUp(
                username: name, password: "Passw0rd!",
                options: AuthSignUpRequest.Options(userAttributes: [AuthUserAttribute(.email, value: "\(name)@example.com")]))
            _ = try await plugin.confirmSignUp(for: name, confirmationCode: try await fixture.latestCode(plugin, for: name), options: nil)
        }
    }

    @Test(
        "three instances hold every session wherever it began; each refresh is one instance's (rotated refresh tokens never refused), and the others take its tokens without an event"
    )
    func oneRefresherPerSession() async throws {
        let fleet = try await Fleet(lifetime: 2)
        defer { fleet.redis.stop() }
        let instances = try await fleet.instances(["instance-0", "instance-1", "instance-2"])
        let users = (0..<6).map { "user\($0)" }
        try await Self.signUp(instances[0].plugin, fleet.fixture, users)
        for (index, user) in users.enumerated() { try await instances[index % 3].signIn(user) }
        for instance in instances {
            #expect(try await Self.eventually { await Set(instance.store.usernames) == Set(users) })
        }
        // Three lifetimes of the 2 s access token: every session refreshed at least twice.
        var refreshes: [String: Int] = [:]
        #expect(
            try await Self.eventually(30) {
                refreshes = [:]
                for instance in instances {
                    for user in await instance.local(HubPayload.EventName.Auth.tokenRefreshed) { refreshes[user, default: 0] += 1 }
                }
                return users.allSatisfy { refreshes[$0, default: 0] >= 3 }
            })
        for instance in instances {
            #expect(await instance.seen(HubPayload.EventName.Auth.tokenRefreshFailed).isEmpty)
            #expect(await instance.seen(HubPayload.EventName.Auth.sessionExpired).isEmpty)
            #expect(await instance.store.count == users.count)
            // Every instance's copy is current: an access token that has not expired.
            for user in users {
                let current = try #require(await instance.store.context(for: user)?.session.current)
                #expect(current.accessTokenExpiresAt > Date().addingTimeInterval(-0.5))
            }
        }
        // Each sign-in was dispatched once, where it happened, and relayed to the two others.
        for (index, instance) in instances.enumerated() {
            #expect(
                Set(await instance.local(HubPayload.EventName.Auth.signedIn))
                    == Set(users.enumerated().filter { $0.offset % 3 == index }.map(\.element)))
            #expect(
                try await Self.eventually {
                    Set(await instance.remote(HubPayload.EventName.Auth.signedIn))
                        == Set(users.enumerated().filter { $0.offset % 3 != index }.map(\.element))
                })
        }
        try await fleet.close(instances)
    }

    @Test(
        "a sign-out on one instance ends the session on every instance within the bound: signedOut dispatched once there and relayed as remote, the record a tombstone; a restarted instance does not hold it"
    )
    func signOutEverywhere() async throws {
        let fleet = try await Fleet(lifetime: 60)
        defer { fleet.redis.stop() }
        let instances = try await fleet.instances(["instance-0", "instance-1", "instance-2"])
        try await Self.signUp(instances[0].plugin, fleet.fixture, ["alice", "bob"])
        try await instances[0].signIn("alice")
        try await instances[1].signIn("bob")
        for instance in instances { #expect(try await Self.eventually { await instance.store.count == 2 }) }

        let start = ContinuousClock.now
        let context = try #require(await instances[2].store.context(for: "alice"))
        _ = await context.run { await Amplify.Auth.signOut() }
        for instance in instances { #expect(try await Self.eventually(1) { await instance.store.usernames == ["bob"] }) }
        let elapsed = ContinuousClock.now - start
        #expect(elapsed < .milliseconds(1000), "the other instances dropped the session after \(elapsed)")
        #expect(await instances[2].local(HubPayload.EventName.Auth.signedOut) == ["alice"])
        for instance in instances.prefix(2) {
            #expect(try await Self.eventually { await instance.remote(HubPayload.EventName.Auth.signedOut) == ["alice"] })
            #expect(await instance.local(HubPayload.EventName.Auth.signedOut).isEmpty)
        }
        #expect(try fleet.redis.command(["GET", "amplify:fleet:session:\(try instances[0].plugin.contextTenant().id):alice"]) == "ended")
        let late = try await fleet.instances(["instance-late"])[0]
        #expect(await late.store.usernames == ["bob"])
        await late.close()
        try await fleet.close(instances)
    }

    @Test(
        "an instance that died holding a session's lease (mid-refresh) loses it after the lease's time, and another instance refreshes the session before it expires"
    )
    func takeoverAfterDeath() async throws {
        let fleet = try await Fleet(lifetime: 4)
        defer { fleet.redis.stop() }
        let survivor = try await fleet.instances(["survivor"], lease: .seconds(1))[0]
        try await Self.signUp(survivor.plugin, fleet.fixture, ["alice"])
        try await survivor.signIn("alice")
        let signedIn = try #require(await survivor.store.context(for: "alice")?.session.current)
        // The dead instance took the lease and never wrote or released it.
        let dead = try FleetSessionRecords(
            client: survivor.fleet.client, key: fleet.key, tenant: try survivor.plugin.contextTenant().id, instance: "dead-instance")
        guard case .acquired = try await dead.claim("alice", knownVersion: 1, leaseDuration: .seconds(1)) else {
            Issue.record("the dead instance could not take the lease")
            return
        }
        #expect(try await Self.eventually(10) { await survivor.local(HubPayload.EventName.Auth.tokenRefreshed) == ["alice"] })
        let renewed = try #require(await survivor.store.context(for: "alice")?.session.current)
        #expect(renewed.refreshToken != signedIn.refreshToken)
        #expect(Date() < signedIn.accessTokenExpiresAt, "the refresh came after the old access token expired")
        #expect(await survivor.seen(HubPayload.EventName.Auth.sessionExpired).isEmpty)
        try await fleet.close([survivor])
    }

    @Test(
        "an instance stalled past its lease mid-refresh: another takes over and rotates the refresh token; the stale one's refused token and refused write end nothing, it takes the new tokens"
    )
    func stalledInstanceIsFenced() async throws {
        let fleet = try await Fleet(lifetime: 600)
        defer { fleet.redis.stop() }
        let instances = try await fleet.instances(["stalled", "live"], lease: .seconds(1))
        let (stalled, live) = (instances[0], instances[1])
        try await Self.signUp(stalled.plugin, fleet.fixture, ["alice"])
        try await stalled.signIn("alice")
        #expect(try await Self.eventually { await live.store.count == 1 })
        let original = try #require(await stalled.store.context(for: "alice")?.session.current)
        let exchange = try stalled.plugin.sessionRefresh()
        // A paused process renews nothing: its lease runs out while it stalls.
        let sharing = try stalled.fleet.sharing(for: stalled.plugin, renewingLeases: false)
        _ = try await sharing.start { _ in }
        let gate = Locked(false)
        // The stalled instance's exchange does not run until the other has refreshed: a process
        // paused (SIGSTOP) after taking the lease, its renewals stopped with it.
        let stalledRefresh = Task {
            try await sharing.refresh(original) { session in
                while !gate.value { try await Task.sleep(for: .milliseconds(20)) }
                return try await exchange(session)
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        let liveContext = try #require(await live.store.context(for: "alice"))
        let renewedLive = try await liveContext.session.refresh()
        #expect(renewedLive.refreshToken != original.refreshToken)
        gate.withLock { $0 = true }
        let outcome = try await stalledRefresh.value
        #expect(outcome == .adopted(renewedLive))
        for instance in [stalled, live] {
            #expect(await instance.seen(HubPayload.EventName.Auth.sessionExpired).isEmpty)
            #expect(await instance.store.count == 1)
        }
        await sharing.stop()
        try await fleet.close(instances)
    }

    @Test(
        "redis-server SIGKILLed and restarted without its data: no session is lost — the instances save their copies again, and refreshes go on without signing anybody out"
    )
    func redisLosesItsData() async throws {
        let fleet = try await Fleet(lifetime: 2)
        defer { fleet.redis.stop() }
        let instances = try await fleet.instances(["instance-0", "instance-1"])
        try await Self.signUp(instances[0].plugin, fleet.fixture, ["alice", "bob"])
        try await instances[0].signIn("alice")
        try await instances[1].signIn("bob")
        for instance in instances { #expect(try await Self.eventually { await instance.store.count == 2 }) }
        try await fleet.redis.restart()
        let tenant = try instances[0].plugin.contextTenant().id
        #expect(
            try await Self.eventually(20) {
                (try? fleet.redis.command(["EXISTS", "amplify:fleet:session:\(tenant):alice"])) == ":1"
                    && (try? fleet.redis.command(["EXISTS", "amplify:fleet:session:\(tenant):bob"])) == ":1"
            })
        let refreshedBefore =
            await instances[0].local(HubPayload.EventName.Auth.tokenRefreshed).count
            + instances[1].local(HubPayload.EventName.Auth.tokenRefreshed).count
        #expect(
            try await Self.eventually(20) {
                await instances[0].local(HubPayload.EventName.Auth.tokenRefreshed).count
                    + instances[1].local(HubPayload.EventName.Auth.tokenRefreshed).count
                    >= refreshedBefore + 4
            })
        for instance in instances {
            #expect(await instance.seen(HubPayload.EventName.Auth.sessionExpired).isEmpty)
            #expect(Set(await instance.store.usernames) == ["alice", "bob"])
        }
        try await fleet.close(instances)
    }

    @Test(
        "a request's token verified and cached on one instance is refused there soon after a global sign-out on another (the revocation notice), in under 250 ms"
    )
    func revocationEmptiesOtherCaches() async throws {
        let fleet = try await Fleet(lifetime: 600)
        defer { fleet.redis.stop() }
        let instances = try await fleet.instances(["instance-0", "instance-1"])
        try await Self.signUp(instances[0].plugin, fleet.fixture, ["alice"])
        // A browser's session (a request context, not a held one), verified and cached on instance 1.
        let browser = try instances[0].plugin.emptyServerContext()
        _ = try await browser.run { try await Amplify.Auth.signIn(username: "alice", password: "Passw0rd!") }
        let tokens = try #require(await browser.session.current)
        let authenticator = AmplifyAuthenticator(plugin: instances[1].plugin)
        let credentials = RequestCredentials(authorization: ["Bearer \(tokens.accessToken)"], cookies: [])
        #expect(try await authenticator.authenticate(credentials).user?.username == "alice")
        #expect(try await authenticator.authenticate(credentials).user?.username == "alice")
        #expect(authenticator.cache?.statistics.hits == 1)

        let start = ContinuousClock.now
        _ = await browser.run { await Amplify.Auth.signOut(options: AuthSignOutRequest.Options(globalSignOut: true)) }
        var refusedAfter: Duration?
        while ContinuousClock.now - start < .seconds(5) {
            do {
                _ = try await authenticator.authenticate(credentials)
            } catch {
                refusedAfter = ContinuousClock.now - start
                break
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        let refused = try #require(refusedAfter, "instance 1 still accepted the token 5 s after the sign-out")
        #expect(refused < .milliseconds(250))
        try await fleet.close(instances)
    }

    @Test(
        "after Redis lost its data, a stale copy saved again first does not end the session: the instance that knows a newer version refreshes from its own tokens; a newer copy saved later replaces the stale one"
    )
    func staleCopyRestoredFirst() async throws {
        let fleet = try await Fleet(lifetime: 600)
        defer { fleet.redis.stop() }
        let instances = try await fleet.instances(["instance-0", "instance-1"])
        try await Self.signUp(instances[0].plugin, fleet.fixture, ["alice"])
        try await instances[0].signIn("alice")
        #expect(try await Self.eventually { await instances[1].store.count == 1 })
        let stale = try #require(await instances[1].store.context(for: "alice")?.session.current)
        // Instance 0 refreshes (version 2; the refresh token rotates); instance 1 has not looked yet.
        let context = try #require(await instances[0].store.context(for: "alice"))
        let newer = try await context.session.refresh()
        #expect(newer.refreshToken != stale.refreshToken)
        // Redis loses everything, and instance 1's stale copy (version 1) is saved again first.
        _ = try fleet.redis.command(["FLUSHALL"])
        let tenant = try instances[0].plugin.contextTenant().id
        let records = try FleetSessionRecords(client: instances[1].fleet.client, key: fleet.key, tenant: tenant, instance: "restorer")
        #expect(try await records.restore(stale, version: 1))
        let refreshed = try await context.session.refresh()
        #expect(refreshed.refreshToken != newer.refreshToken)
        #expect(await instances[0].seen(HubPayload.EventName.Auth.sessionExpired).isEmpty)
        #expect(try await records.load("alice")?.session == refreshed)
        // The newest copy wins whatever the order: a stale one saved after it changes nothing.
        #expect(try await records.restore(stale, version: 1) == false)
        _ = try fleet.redis.command(["FLUSHALL"])
        #expect(try await records.restore(stale, version: 1))
        #expect(try await records.restore(refreshed, version: 3))
        #expect(try await records.load("alice")?.session == refreshed)
        try await fleet.close(instances)
    }

    @Test("a refresh by an instance alone in its fleet is two Redis round trips: the claim and the fenced write")
    func roundTripsPerRefresh() async throws {
        let fleet = try await Fleet(lifetime: 600)
        defer { fleet.redis.stop() }
        let instance = try await fleet.instances(["alone"])[0]
        try await Self.signUp(instance.plugin, fleet.fixture, ["alice"])
        try await instance.signIn("alice")
        let context = try #require(await instance.store.context(for: "alice"))
        _ = try fleet.redis.command(["CONFIG", "RESETSTAT"])
        let before = instance.fleet.client.commandsSent
        for _ in 0..<5 { _ = try await context.session.refresh() }
        #expect(instance.fleet.client.commandsSent - before == 10)
        // Redis saw two scripts a refresh (its statistics count the commands inside them too).
        let stats = try fleet.redis.command(["INFO", "commandstats"])
        #expect(stats.contains("cmdstat_eval:calls=10,"), "\(stats)")
        try await fleet.close([instance])
    }
}
