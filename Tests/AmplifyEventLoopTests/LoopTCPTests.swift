import AmplifyConcurrency
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking client socket on the loopback interface, as a peer the loop knows nothing about.
/// Every receive times out after 10 s, so a broken server fails the test instead of hanging it.
struct RawClient {
    let fd: Int32

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Connects to `host` (`127.0.0.1` or `::1`) at `port`.
    init(host: String = "127.0.0.1", port: Int) throws {
        let isIPv6 = host.contains(":")
        let fd = socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected: Int32
        if isIPv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, host, &address.sin6_addr)
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr(host)
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw Failure(description: "connect to \(host):\(port): \(reason)")
        }
        self.fd = fd
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress.map { $0 + offset }, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
            offset += sent
        }
    }

    /// Up to `count` bytes; empty at the end of the stream.
    func receive(upTo count: Int = 65_536) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let received = recv(fd, &buffer, count, 0)
        guard received >= 0 else { throw Failure(description: "recv: \(String(cString: strerror(errno)))") }
        return Array(buffer[0..<received])
    }

    /// Exactly `count` bytes, or fewer if the stream ends first.
    func receive(exactly count: Int) throws -> [UInt8] {
        var answer: [UInt8] = []
        while answer.count < count {
            let chunk = try receive(upTo: min(65_536, count - answer.count))
            if chunk.isEmpty { break }
            answer += chunk
        }
        return answer
    }

    /// Everything until the peer closes.
    func receiveToEnd() throws -> [UInt8] {
        var answer: [UInt8] = []
        while true {
            let chunk = try receive()
            if chunk.isEmpty { return answer }
            answer += chunk
        }
    }

    /// Ends the writing side (the peer reads the end of the stream).
    func finishWriting() { shutdown(fd, Int32(SHUT_WR)) }

    /// Closes with a reset (SO_LINGER 0) instead of an orderly end.
    func reset() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        Glibc.close(fd)
    }

    func close() { Glibc.close(fd) }
}

/// A server on the loop for the tests: it accepts on a ``LoopTCPListener`` and does what
/// `onConnection` says with each connection, recording what it saw.
final class TestServer: @unchecked Sendable {
    // @unchecked Sendable: `listener` and `connections` are touched only on the loop thread;
    // `events` is behind its lock (`Locked`).
    let loop: EventLoop
    private var listener: LoopTCPListener?
    private(set) var connections: [LoopTCPConnection] = []
    let events = Locked<[String]>([])
    private(set) var port = 0

    init(loop: EventLoop) { self.loop = loop }

    /// Starts listening (from off the loop; waits for the loop to do it).
    func start(host: String = "127.0.0.1", port: Int = 0, _ onConnection: @escaping @Sendable (TestServer, LoopTCPConnection) -> Void) throws {
        try loop.submitAndWait { [self] in
            let listener = try LoopTCPListener(loop: loop, host: host, port: port) { [self] result in
                switch result {
                case .success(let connection):
                    connections.append(connection)
                    onConnection(self, connection)
                case .failure(let error):
                    record("accept failed: \(error)")
                }
            }
            self.listener = listener
            self.port = listener.port
        }
    }

    func record(_ event: String) { events.withLock { $0.append(event) } }

    /// Runs `body` on the loop thread and waits for it.
    func onLoop<T: Sendable>(_ body: @escaping @Sendable (TestServer) throws -> T) throws -> T {
        try loop.submitAndWait { [self] in try body(self) }
    }

    func closeListener() throws {
        try onLoop { server in
            server.listener?.close()
            server.listener = nil
        }
    }

    /// Echoes what each connection sends and closes it at the end of its stream.
    static func echo(_ server: TestServer, _ connection: LoopTCPConnection) {
        do {
            try connection.startReading { [unowned connection] event in
                switch event {
                case .bytes(let bytes):
                    connection.write(bytes) { error in
                        if let error { server.record("write failed: \(error)") }
                    }
                case .end:
                    server.record("end")
                    connection.close()
                case .failed(let error):
                    server.record("failed: \(error)")
                    connection.close()
                }
            }
        } catch {
            server.record("startReading threw: \(error)")
        }
    }
}

/// Waits up to `timeout` for `condition`, checking every 5 ms.
func eventually(_ timeout: Duration = .seconds(60), _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        usleep(5_000)
    }
    return condition()
}

@Suite("Loop TCP listener and connection")
struct LoopTCPTests {
    @Test("a listener on 127.0.0.1 reports the port the system chose and echoes a client's bytes back until it ends its stream")
    func echoOnIPv4() throws {
        let loop = try EventLoop(name: "tcp-test")
        let server = TestServer(loop: loop)
        try server.start(TestServer.echo)
        #expect(server.port > 0)
        let client = try RawClient(port: server.port)
        try client.send(Array("hello, loop".utf8))
        #expect(try client.receive(exactly: 11) == Array("hello, loop".utf8))
        client.finishWriting()
        #expect(try client.receiveToEnd().isEmpty)
        client.close()
        #expect(eventually { server.events.withLock { $0 } == ["end"] })
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }

    @Test("a listener on ::1 accepts and echoes over IPv6")
    func echoOnIPv6() throws {
        let loop = try EventLoop(name: "tcp-test")
        let server = TestServer(loop: loop)
        try server.start(host: "::1", TestServer.echo)
        #expect(server.port > 0)
        let client = try RawClient(host: "::1", port: server.port)
        try client.send(Array("over six".utf8))
        #expect(try client.receive(exactly: 8) == Array("over six".utf8))
        client.finishWriting()
        #expect(try client.receiveToEnd().isEmpty)
        client.close()
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }

    @Test("many clients at once each get exactly their own 256 KiB back, across many reads and writes")
    func manyConnections() throws {
        let loop = try EventLoop(name: "tcp-test")
        let server = TestServer(loop: loop)
        try server.start(TestServer.echo)
        let port = server.port
        let mismatches = Counter()
        let failures = Locked<[String]>([])
        onThreads(32) { index in
            do {
                let client = try RawClient(port: port)
                defer { client.close() }
                // Filled in place: a `map` over the range made a closure call and a runtime
                // metadata look-up per byte, which under ThreadSanitizer kept 32 threads busy for
                // minutes and starved the loops of other tests running beside this one.
                let payload = [UInt8](unsafeUninitializedCapacity: 256 * 1024) { bytes, count in
                    for offset in bytes.indices { bytes[offset] = UInt8(truncatingIfNeeded: offset &* 31 &+ index) }
                    count = bytes.count
                }
                // Write and read at once so neither side's buffers fill up.
                let received = Locked<[UInt8]?>(nil)
                let done = DispatchSemaphore(value: 0)
                Thread {
                    let bytes = try? client.receive(exactly: payload.count)
                    received.withLock { $0 = bytes }
                    done.signal()
                }.start()
                try client.send(payload)
                done.wait()
                if received.withLock({ $0 }) != payload { mismatches.increment() }
                client.finishWriting()
                if try !client.receiveToEnd().isEmpty { mismatches.increment() }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(mismatches.value == 0)
        #expect(eventually { server.events.withLock { $0 }.filter { $0 == "end" }.count == 32 })
        #expect(server.events.withLock { $0 }.allSatisfy { $0 == "end" })
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }

    @Test("a peer's orderly close arrives after its bytes as the end of the stream, and a reset as a read error")
    func peerClose() throws {
        let loop = try EventLoop(name: "tcp-test")
        let server = TestServer(loop: loop)
        try server.start { server, connection in
            try? connection.startReading { [unowned connection] event in
                switch event {
                case .bytes(let bytes): server.record("bytes \(bytes.count)")
                case .end:
                    server.record("end")
                    server.record("reading after end: \(connection.isReading)")
                    connection.close()
                case .failed(let error):
                    if case .libuv(_, let code, _) = error { server.record("failed \(code)") }
                    connection.close()
                }
            }
        }
        let orderly = try RawClient(port: server.port)
        try orderly.send([1, 2, 3])
        #expect(eventually { server.events.withLock { $0 } == ["bytes 3"] })
        orderly.close()
        #expect(eventually { server.events.withLock { $0 }.count == 3 })
        #expect(server.events.withLock { $0 } == ["bytes 3", "end", "reading after end: false"])

        server.events.withLock { $0.removeAll() }
        let rude = try RawClient(port: server.port)
        try rude.send([9])
        #expect(eventually { server.events.withLock { $0 } == ["bytes 1"] })
        rude.reset()
        #expect(eventually { server.events.withLock { $0 }.count == 2 })
        #expect(server.events.withLock { $0 } == ["bytes 1", "failed \(-ECONNRESET)"])
        #expect(try server.onLoop { server in server.connections.allSatisfy { !$0.isOpen } })
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }

    @Test("closing a connection inside its read callback delivers no further read, and the peer sees the end")
    func closeWhileReading() throws {
        let loop = try EventLoop(name: "tcp-test")
        let server = TestServer(loop: loop)
        try server.start { server, connection in
            try? connection.startReading { [unowned connection] event in
                server.record("read")
                connection.close()
                server.record("open after close: \(connection.isOpen), reading: \(connection.isReading)")
                _ = event
            }
        }
        let client = try RawClient(port: server.port)
        try client.send(Array("first".utf8))
        #expect(try client.receiveToEnd().isEmpty)
        try? client.send(Array("second".utf8))  // may fail with a reset: the server is gone
        client.close()
        usleep(50_000)
        #expect(server.events.withLock { $0 } == ["read", "open after close: false, reading: false"])
        let afterClose = try server.onLoop { server -> String in
            guard let connection = server.connections.first else { return "no connection" }
            do {
                try connection.startReading { _ in }
                return "started"
            } catch {
                return "threw"
            }
        }
        #expect(afterClose == "threw")
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }

    @Test("stopReading holds the peer's bytes in the socket until reading starts again")
    func stopAndRestartReading() throws {
        let loop = try EventLoop(name: "tcp-test")
        let server = TestServer(loop: loop)
        try server.start { server, connection in
            try? connection.startReading { [unowned connection] event in
                if case .bytes(let bytes) = event {
                    server.record("first \(bytes.count)")
                    connection.stopReading()
                }
            }
        }
        let client = try RawClient(port: server.port)
        try client.send([1, 2, 3, 4])
        #expect(eventually { server.events.withLock { $0 } == ["first 4"] })
        try client.send([5, 6])
        usleep(50_000)
        #expect(server.events.withLock { $0 } == ["first 4"])
        try server.onLoop { server in
            try server.connections.first?.startReading { event in
                if case .bytes(let bytes) = event { server.record("again \(bytes)") }
            }
        }
        #expect(eventually { server.events.withLock { $0 }.count == 2 })
        #expect(server.events.withLock { $0 } == ["first 4", "again [5, 6]"])
        client.close()
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }

    @Test(
        "a write's completion reports success (an empty one too), a write on a closed connection fails at once, and a pending write is cancelled by close"
    )
    func writeCompletions() throws {
        let loop = try EventLoop(name: "tcp-test")
        let server = TestServer(loop: loop)
        let big = [UInt8](repeating: 7, count: 16 * 1024 * 1024)
        try server.start { server, connection in
            connection.write([]) { error in server.record("empty: \(error == nil ? "ok" : "error")") }
            connection.write(Array("hi".utf8)) { error in server.record("small: \(error == nil ? "ok" : "error")") }
            // The client reads nothing, so 16 MiB cannot all leave before the close below.
            connection.write(big) { error in
                if case .libuv(_, let code, _)? = error { server.record("big: \(code)") } else { server.record("big: ok") }
            }
            connection.close()
            server.record("closed")
            connection.write([1]) { error in
                if case .libuv(_, let code, _)? = error { server.record("after close: \(code)") }
            }
        }
        let client = try RawClient(port: server.port)
        #expect(eventually { server.events.withLock { $0 }.count == 5 })
        #expect(server.events.withLock { $0 } == ["closed", "after close: \(-ENOTCONN)", "empty: ok", "small: ok", "big: \(-ECANCELED)"])
        client.close()
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }

    @Test("a port already listening, a name instead of an address and a port out of range are errors; a closed listener refuses connections")
    func listenerErrorsAndClose() throws {
        let loop = try EventLoop(name: "tcp-test")
        let server = TestServer(loop: loop)
        try server.start(TestServer.echo)
        let port = server.port
        let errors = try loop.submitAndWait { () -> [String] in
            var seen: [String] = []
            for (host, port) in [("127.0.0.1", port), ("localhost", 0), ("127.0.0.1", 70_000), ("::1", -1)] {
                do throws(EventLoopError) {
                    let listener = try LoopTCPListener(loop: loop, host: host, port: port) { _ in }
                    listener.close()
                    seen.append("listened")
                } catch {
                    if case .libuv(let operation, let code, _) = error { seen.append("\(operation) \(code)") } else { seen.append("\(error)") }
                }
            }
            return seen
        }
        #expect(errors.count == 4)
        #expect(errors.first == "listening on 127.0.0.1:\(port) \(-EADDRINUSE)")
        #expect(errors.dropFirst().allSatisfy { $0.hasSuffix(" \(-EINVAL)") })
        #expect(errors.last?.hasPrefix("listening on [::1]:-1") == true)
        try server.closeListener()
        #expect(throws: RawClient.Failure.self) { _ = try RawClient(port: port) }
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }

    @Test("a loop shutdown closes the listener and every open connection, reading or writing, and leaves no handle open")
    func shutdownWithOpenConnections() throws {
        let loop = try EventLoop(name: "tcp-test")
        let server = TestServer(loop: loop)
        let big = [UInt8](repeating: 1, count: 16 * 1024 * 1024)
        try server.start { server, connection in
            try? connection.startReading { _ in }
            connection.write(big) { error in
                if case .libuv(_, let code, _)? = error { server.record("write: \(code)") } else { server.record("write: ok") }
            }
        }
        let clients = try (0..<5).map { _ in try RawClient(port: server.port) }
        #expect(eventually { (try? server.onLoop { $0.connections.count }) == 5 })
        try loop.shutdown()  // throws handlesLeftOpen if the loop had to close a handle it did not own
        #expect(loop.loopClosedCleanly)
        #expect(server.events.withLock { $0 } == Array(repeating: "write: \(-ECANCELED)", count: 5))
        for client in clients {
            // The client sees the data already sent, then the end of the stream (or a reset).
            while let chunk = try? client.receive(), !chunk.isEmpty {}
            client.close()
        }
    }
}
