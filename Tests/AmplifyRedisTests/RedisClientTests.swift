import AmplifyEventLoop
import AmplifyRedis
import AmplifyTestKit
import Foundation
import Testing

/// The request-and-reply client on hiredis and the loop, against a redis-server of the test's own.
@Suite("Redis client", .serialized)
struct RedisClientTests {
    @Test("commands get their replies in order; an error reply is a reply; SET NX PX takes a lease once")
    func repliesAndLeases() async throws {
        let redis = try await RedisServer.launch()
        defer { redis.stop() }
        let loop = try EventLoop(name: "redis-client-test")
        let client = RedisClient(host: "127.0.0.1", port: redis.port, loop: loop)
        #expect(try await client.command(["SET", "k", "v"]) == .status("OK"))
        #expect(try await client.command(["GET", "k"]) == .string("v"))
        #expect(try await client.command(["GET", "missing"]) == .null)
        #expect(try await client.command(["INCR", "n"]) == .integer(1))
        #expect(try await client.command(["LPUSH", "k", "x"]).errorMessage?.hasPrefix("WRONGTYPE") == true)
        #expect(try await client.command(["SET", "lease", "a", "NX", "PX", "5000"]) == .status("OK"))
        #expect(try await client.command(["SET", "lease", "b", "NX", "PX", "5000"]) == .null)
        // Many at once from many tasks: each gets its own reply.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask { () async throws -> Void in
                    let set: RedisReply = try await client.command(["SET", "key-\(index)", "value-\(index)"])
                    let get: RedisReply = try await client.command(["GET", "key-\(index)"])
                    #expect(set == .status("OK"))
                    #expect(get == .string("value-\(index)"))
                }
            }
            try await group.waitForAll()
        }
        await client.close()
        await #expect(throws: RedisClientError.self) { try await client.command(["PING"]) }
        try loop.shutdown()
    }

    @Test("with the server gone a command fails naming it; once it is back the next command reconnects")
    func serverGoneAndBack() async throws {
        let redis = try await RedisServer.launch()
        defer { redis.stop() }
        let loop = try EventLoop(name: "redis-client-test")
        let client = RedisClient(host: "127.0.0.1", port: redis.port, loop: loop)
        #expect(try await client.command(["PING"]) == .status("PONG"))
        redis.stop()
        let error = await #expect(throws: RedisClientError.self) {
            // The first command may go out before the loss is noticed; the next one cannot.
            _ = try await client.command(["PING"])
            _ = try await client.command(["PING"])
        }
        #expect(error?.message.contains("127.0.0.1:\(redis.port)") == true)
        try await redis.start()
        #expect(try await client.command(["PING"]) == .status("PONG"))
        await client.close()
        try loop.shutdown()
    }
}
