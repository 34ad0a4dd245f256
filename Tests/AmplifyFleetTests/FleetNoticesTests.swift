import AmplifyAuthCore
import AmplifyConcurrency
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

@testable import AmplifyFleet

/// Fleet notices over Redis pub/sub between instances, and back after Redis restarts.
@Suite("Fleet notices", .serialized)
struct FleetNoticesTests {
    /// Reads a stream in a task of its own, keeping what it yields.
    final class Collector: Sendable {
        let events = Locked<[FleetNotices.Event]>([])
        init(_ stream: AsyncStream<FleetNotices.Event>) {
            let events = self.events
            Task { for await event in stream { events.withLock { $0.append(event) } } }
        }
        var notices: [FleetNotices.Notice] {
            events.value.compactMap { if case .notice(let notice) = $0 { notice } else { nil } }
        }
        var subscriptions: Int { events.value.filter { $0 == .resubscribed }.count }
    }

    @Test("each kind of notice published by one instance reaches every instance whole; after Redis restarts each subscribes again and says so")
    func noticesAcrossInstances() async throws {
        let redis = try await RedisServer.launch()
        defer { redis.stop() }
        let loop = try EventLoop(name: "fleet-revocations-test")
        let first = FleetNotices(host: "127.0.0.1", port: redis.port, loop: loop)
        let second = FleetNotices(host: "127.0.0.1", port: redis.port, loop: loop)
        let atFirst = Collector(first.events())
        let atSecond = Collector(second.events())
        #expect(await eventually { atFirst.subscriptions == 1 && atSecond.subscriptions == 1 })
        #expect(try await first.publish(FleetNotices.Notice(.ended(username: "alice"), origin: "instance-a")) == 2)
        #expect(await eventually { atFirst.notices.count == 1 && atSecond.notices.count == 1 })
        #expect(atSecond.notices.first?.kind == .ended(username: "alice"))
        #expect(atSecond.notices.first?.origin == "instance-a")
        try await redis.restart()
        #expect(await eventually { atFirst.subscriptions == 2 && atSecond.subscriptions == 2 })
        let event = AuthUserEvent(username: "bob", sub: "sub-bob", scope: .held, tenant: "pool-1")
        #expect(try await second.publish(FleetNotices.Notice(.event(name: "Auth.userDeleted", user: event, id: "e-1"), origin: "instance-b")) == 2)
        #expect(await eventually { atFirst.notices.count == 2 })
        #expect(atFirst.notices.last?.kind == .event(name: "Auth.userDeleted", user: event, id: "e-1"))
        await second.stop()
        try await first.publish(FleetNotices.Notice(.revoked(.session(id: "o:abc", until: 1_900_000_000.5)), origin: "instance-a"))
        try await first.publish(FleetNotices.Notice(.revoked(.user(sub: "sub-bob", before: 1_800_000_000)), origin: "instance-a"))
        #expect(await eventually { atFirst.notices.count == 4 })
        #expect(
            atFirst.notices.dropFirst(2).map(\.kind) == [
                .revoked(.session(id: "o:abc", until: 1_900_000_000.5)), .revoked(.user(sub: "sub-bob", before: 1_800_000_000)),
            ])
        await first.stop()
        try loop.shutdown()
    }
}
