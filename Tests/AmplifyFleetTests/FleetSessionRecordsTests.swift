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

    @Test("a saved session loads back whole; Redis holds no token in the clear; another key, or a record moved to another user, does not open")
    func sealedAtRest() async throws {
        let redis = try await RedisServer.launch()
        defer { redis.stop() }
        let loop = try EventLoop(name: "fleet-records-test")
        let client = RedisClient(host: "127.0.0.1", port: redis.port, loop: loop)
        let key = try Digest.randomBytes(32)
        let records = try FleetSessionRecords(client: client, key: key, tenant: "pool-1")
        try await records.save(Self.session("alice"))
        #expect(try await records.load("alice") == Self.session("alice"))
        #expect(try await records.load("nobody") == nil)
        let raw = try redis.command(["GET", "amplify:fleet:session:pool-1:alice"])
        #expect(!raw.contains("refresh-token-of-alice") && !raw.contains("access-1") && !raw.contains("id-token"))
        let otherKey = try FleetSessionRecords(client: client, key: try Digest.randomBytes(32), tenant: "pool-1")
        await #expect(throws: FleetRecordError.self) { try await otherKey.load("alice") }
        _ = try redis.command(["COPY", "amplify:fleet:session:pool-1:alice", "amplify:fleet:session:pool-1:mallory"])
        await #expect(throws: FleetRecordError.self) { try await records.load("mallory") }
        #expect(throws: CryptoError.self) { try FleetSessionRecords(client: client, key: Array(key.prefix(16)), tenant: "pool-1") }
        try await records.remove("alice")
        #expect(try await records.load("alice") == nil)
        await client.close()
        try loop.shutdown()
    }

    @Test(
        "one instance holds a session's lease; it expires and another takes it with a higher fence; the stale holder's write and renewal are refused")
    func leasesAndFencing() async throws {
        let redis = try await RedisServer.launch()
        defer { redis.stop() }
        let loop = try EventLoop(name: "fleet-records-test")
        let client = RedisClient(host: "127.0.0.1", port: redis.port, loop: loop)
        let key = try Digest.randomBytes(32)
        let first = try FleetSessionRecords(client: client, key: key, tenant: "pool-1", instance: "instance-a")
        let second = try FleetSessionRecords(client: client, key: key, tenant: "pool-1", instance: "instance-b")
        try await first.save(Self.session("alice"))
        let lease = try #require(try await first.acquireLease(for: "alice", duration: .milliseconds(300)))
        #expect(try await second.acquireLease(for: "alice", duration: .seconds(5)) == nil)
        #expect(try await first.renew(lease, duration: .milliseconds(300)))
        #expect(try await first.write(Self.session("alice", token: "access-2"), under: lease))
        #expect(try await second.load("alice")?.accessToken == "access-2")
        // The first instance stalls past its lease (a pause, a partition); the second takes over.
        try await Task.sleep(for: .milliseconds(450))
        let taken = try #require(try await second.acquireLease(for: "alice", duration: .seconds(5)))
        #expect(taken.fence > lease.fence)
        #expect(try await second.write(Self.session("alice", token: "access-3"), under: taken))
        // The stale instance wakes and writes what it refreshed: refused, the newer tokens stay.
        #expect(try await first.write(Self.session("alice", token: "access-stale"), under: lease) == false)
        #expect(try await first.renew(lease, duration: .seconds(5)) == false)
        try await first.release(lease)
        #expect(try await first.load("alice")?.accessToken == "access-3")
        #expect(try await first.acquireLease(for: "alice", duration: .seconds(5)) == nil)
        try await second.release(taken)
        #expect(try await first.acquireLease(for: "alice", duration: .seconds(5)) != nil)
        await client.close()
        try loop.shutdown()
    }
}
