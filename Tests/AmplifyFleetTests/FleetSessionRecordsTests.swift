import AmplifyAuthCore
import AmplifyCrypto
import AmplifyEventLoop
import AmplifyRedis
import AmplifyTestKit
import Foundation
import Testing

@testable import AmplifyFleet

/// Shared session records on a redis-server of the test's own: sealed at rest, one lease holder,
/// fencing against a stale writer.
@Suite("Fleet session records", .serialized)
struct FleetSessionRecordsTests {
    private static func session(_ username: String, token: String = "access-1") -> StoredSession {
        StoredSession(
            username: username, userId: "id-\(username)", idToken: "id-token-of-\(username)", accessToken: token,
            refreshToken: "refresh-token-of-\(username)", accessTokenExpiresAt: Date(timeIntervalSince1970: 1_900_000_000),
            refreshTokenExpiresAt: nil)
    }

    @Test(
        "a saved session loads back whole at version 1; Redis holds no token in the clear; another key, or a record moved to another user, does not open; an ending leaves a tombstone"
    )
    func sealedAtRest() async throws {
        let redis = try await RedisServer.launch()
        defer { redis.stop() }
        let loop = try EventLoop(name: "fleet-records-test")
        let client = RedisClient(host: "127.0.0.1", port: redis.port, loop: loop)
        let key = try Digest.randomBytes(32)
        let records = try FleetSessionRecords(client: client, key: key, tenant: "pool-1")
        #expect(try await records.save(Self.session("alice")) == 1)
        #expect(try await records.load("alice") == FleetSessionRecords.Record(session: Self.session("alice"), version: 1))
        #expect(try await records.load("nobody") == nil)
        let raw = try redis.command(["GET", "amplify:fleet:session:pool-1:alice"])
        #expect(raw.hasPrefix("1.") && !raw.contains("refresh-token-of-alice") && !raw.contains("access-1") && !raw.contains("id-token"))
        let otherKey = try FleetSessionRecords(client: client, key: try Digest.randomBytes(32), tenant: "pool-1")
        await #expect(throws: FleetRecordError.self) { try await otherKey.load("alice") }
        _ = try redis.command(["COPY", "amplify:fleet:session:pool-1:alice", "amplify:fleet:session:pool-1:mallory"])
        await #expect(throws: FleetRecordError.self) { try await records.load("mallory") }
        #expect(throws: CryptoError.self) { try FleetSessionRecords(client: client, key: Array(key.prefix(16)), tenant: "pool-1") }
        try await records.end("alice")
        #expect(try await records.load("alice") == nil)
        #expect(try redis.command(["GET", "amplify:fleet:session:pool-1:alice"]) == "ended")
        #expect(try await records.claim("alice", knownVersion: 1, leaseDuration: .seconds(5)) == .ended)
        #expect(try await records.save(Self.session("alice", token: "access-again")) == 1)
        #expect(try await records.load("alice")?.session.accessToken == "access-again")
        await client.close()
        try loop.shutdown()
    }

    @Test(
        "a claim takes the lease once; the write gives it back as the next version, which another instance's claim adopts; after the lease expires another takes it with a higher fence and the stale holder's write and renewal are refused"
    )
    func leasesAndFencing() async throws {
        let redis = try await RedisServer.launch()
        defer { redis.stop() }
        let loop = try EventLoop(name: "fleet-records-test")
        let client = RedisClient(host: "127.0.0.1", port: redis.port, loop: loop)
        let key = try Digest.randomBytes(32)
        let first = try FleetSessionRecords(client: client, key: key, tenant: "pool-1", instance: "instance-a")
        let second = try FleetSessionRecords(client: client, key: key, tenant: "pool-1", instance: "instance-b")
        try await first.save(Self.session("alice"))
        guard case .acquired(let lease, let record) = try await first.claim("alice", knownVersion: 1, leaseDuration: .seconds(5)) else {
            Issue.record("the first claim did not take the lease")
            return
        }
        #expect(record.version == 1)
        #expect(try await second.claim("alice", knownVersion: 1, leaseDuration: .seconds(5)) == .held)
        #expect(try await first.renew(lease, duration: .seconds(5)))
        #expect(try await first.write(Self.session("alice", token: "access-2"), under: lease) == .written(version: 2))
        #expect(
            try await second.claim("alice", knownVersion: 1, leaseDuration: .seconds(5))
                == .newer(FleetSessionRecords.Record(session: Self.session("alice", token: "access-2"), version: 2)))
        // The first instance takes it again, and stalls past its lease (a pause, a partition).
        guard case .acquired(let stale, _) = try await first.claim("alice", knownVersion: 2, leaseDuration: .milliseconds(300)) else {
            Issue.record("the second claim did not take the lease")
            return
        }
        try await Task.sleep(for: .milliseconds(450))
        guard case .acquired(let taken, _) = try await second.claim("alice", knownVersion: 2, leaseDuration: .seconds(5)) else {
            Issue.record("the lease was not taken over after it expired")
            return
        }
        #expect(taken.fence > stale.fence)
        #expect(try await second.write(Self.session("alice", token: "access-3"), under: taken) == .written(version: 3))
        // The stale instance wakes and writes what it refreshed: refused, the newer tokens stay.
        #expect(try await first.write(Self.session("alice", token: "access-stale"), under: stale) == .fenced)
        #expect(try await first.renew(stale, duration: .seconds(5)) == false)
        #expect(try await first.load("alice") == FleetSessionRecords.Record(session: Self.session("alice", token: "access-3"), version: 3))
        await client.close()
        try loop.shutdown()
    }

    @Test(
        "a missing record (Redis lost it) is told from an ended one: restore saves it only when missing; loadAll finds every record, the endings, and names the record that does not open"
    )
    func missingEndedAndLoadAll() async throws {
        let redis = try await RedisServer.launch()
        defer { redis.stop() }
        let loop = try EventLoop(name: "fleet-records-test")
        let client = RedisClient(host: "127.0.0.1", port: redis.port, loop: loop)
        let records = try FleetSessionRecords(client: client, key: try Digest.randomBytes(32), tenant: "pool[1]")
        #expect(try await records.claim("alice", knownVersion: 3, leaseDuration: .seconds(5)) == .missing)
        #expect(try await records.restore(Self.session("alice"), version: 3))
        #expect(try await records.restore(Self.session("alice", token: "older"), version: 2) == false)
        #expect(try await records.load("alice")?.version == 3)
        for index in 0..<1200 { try await records.save(Self.session("user-\(index)")) }
        try await records.end("user-7")
        _ = try redis.command(["SET", "amplify:fleet:session:pool[1]:forged", "9.AAAA"])
        _ = try redis.command(["SET", "amplify:fleet:session:pool-other:bob", "1.AAAA"])
        #expect(try await records.restore(Self.session("user-7"), version: 1) == false)
        let loaded = try await records.loadAll(batch: 100)
        #expect(loaded.records.count == 1200)
        #expect(Set(loaded.records.map(\.session.username)).contains("alice"))
        #expect(loaded.ended == ["user-7"])
        #expect(loaded.unreadable == ["forged"])
        await client.close()
        try loop.shutdown()
    }
}
