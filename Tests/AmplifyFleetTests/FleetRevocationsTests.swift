import AmplifyConcurrency
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

@testable import AmplifyFleet

/// Revocation notices over Redis pub/sub between instances, and back after Redis restarts.
@Suite("Fleet revocations", .serialized)
struct FleetRevocationsTests {
    /// Reads a stream in a task of its own, keeping what it yields.
    final class Collector: Sendable {
        let events = Locked<[FleetRevocations.Event]>([])
        init(_ stream: AsyncStream<FleetRevocations.Event>) {
            let events = self.events
            Task { for await event in stream { events.withLock { $0.append(event) } } }
        }
        var notices: [FleetRevocations.Notice] {
            events.value.compactMap { if case .notice(let notice) = $0 { notice } else { nil } }
        }
        var subscriptions: Int { events.value.filter { $0 == .resubscribed }.count }
    }

    @Test("a notice published by one instance reaches every instance; after Redis restarts each subscribes again and says so")
    func noticesAcrossInstances() async throws {
        let redis = try await RedisServer.launch()
        defer { redis.stop() }
        let loop = try EventLoop(name: "fleet-revocations-test")
        let first = FleetRevocations(host: "127.0.0.1", port: redis.port, loop: loop)
        let second = FleetRevocations(host: "127.0.0.1", port: redis.port, loop: loop)
        let atFirst = Collector(first.events())
        let atSecond = Collector(second.events())
        #expect(await eventually { atFirst.subscriptions == 1 && atSecond.subscriptions == 1 })
        #expect(try await first.publish(FleetRevocations.Notice(username: "alice", reason: "signedOut", origin: "instance-a")) == 2)
        #expect(await eventually { atFirst.notices.count == 1 && atSecond.notices.count == 1 })
        #expect(atSecond.notices.first?.username == "alice")
        #expect(atSecond.notices.first?.origin == "instance-a")
        try await redis.restart()
        #expect(await eventually { atFirst.subscriptions == 2 && atSecond.subscriptions == 2 })
        #expect(try await second.publish(FleetRevocations.Notice(username: "bob", reason: "userDeleted", origin: "instance-b")) == 2)
        #expect(await eventually { atFirst.notices.map(\.username) == ["alice", "bob"] })
        await first.stop()
        await second.stop()
        try loop.shutdown()
    }
}
