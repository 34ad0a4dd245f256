import AWSCognitoAuthPlugin
import AmplifyEventLoop
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Loopback redirect receiver")
struct LoopbackRedirectReceiverTests {
    /// Sends `request` to 127.0.0.1:`port` with a blocking socket and returns everything answered
    /// until the server closes.
    static func exchange(_ request: String, port: Int) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EBADF) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var answer = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            answer += buffer[0..<count]
        }
        return String(decoding: answer, as: UTF8.self)
    }

    @Test("Only GET of the redirect path is delivered (others get 404), the browser gets the page, and the loop closes cleanly")
    func deliversTheRedirect() async throws {
        let loop = try EventLoop(name: "loopback")
        let receiver = try await LoopbackRedirectReceiver.start(loop: loop, port: 0, path: "/callback", page: "<p>done</p>")
        #expect(receiver.port > 0)
        let port = receiver.port
        let favicon = try await Task.detached { try Self.exchange("GET /favicon.ico HTTP/1.1\r\nHost: x\r\n\r\n", port: port) }.value
        #expect(favicon.hasPrefix("HTTP/1.1 404"))
        let garbage = try await Task.detached { try Self.exchange("hello\r\n\r\n", port: port) }.value
        #expect(garbage.hasPrefix("HTTP/1.1 400"))
        let page = try await Task.detached { try Self.exchange("GET /callback?code=abc&state=xyz HTTP/1.1\r\nHost: x\r\n\r\n", port: port) }.value
        #expect(page.hasPrefix("HTTP/1.1 200 OK"))
        #expect(page.hasSuffix("<p>done</p>"))
        #expect(try await receiver.next(timeout: .seconds(30)) == "/callback?code=abc&state=xyz")
        await receiver.close()
        await #expect(throws: EventLoopError.self) { _ = try await receiver.next(timeout: .seconds(1)) }
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }

    @Test(
        "A wait cancelled before it starts ends at once with CancellationError (its cancellation used to be lost: it waited out the timeout)",
        .timeLimit(.minutes(1)))
    func cancelledBeforeWaiting() async throws {
        let loop = try EventLoop(name: "loopback")
        let receiver = try await LoopbackRedirectReceiver.start(loop: loop, port: 0, path: "/cb", page: "ok")
        let started = ContinuousClock.now
        let waiting = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await receiver.next(timeout: .seconds(600))
        }
        await #expect(throws: CancellationError.self) { _ = try await waiting.value }
        #expect(ContinuousClock.now - started < .seconds(30))
        // The next call is not affected by the one before.
        await #expect(throws: LoopbackRedirectReceiver.TimedOut.self) { _ = try await receiver.next(timeout: .milliseconds(50)) }
        await receiver.close()
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }

    @Test("A request head over 16 KiB is dropped, a busy port is an error, and a loop shutdown closes an open receiver")
    func limitsAndShutdown() async throws {
        let loop = try EventLoop(name: "loopback")
        let receiver = try await LoopbackRedirectReceiver.start(loop: loop, port: 0, path: "/cb", page: "ok")
        let port = receiver.port
        let huge = try await Task.detached { try Self.exchange("GET /cb?" + String(repeating: "a", count: 20_000) + " HTTP/1.1\r\n\r\n", port: port) }
            .value
        #expect(huge.isEmpty)
        await #expect(throws: EventLoopError.self) { _ = try await LoopbackRedirectReceiver.start(loop: loop, port: port, path: "/cb", page: "ok") }
        await #expect(throws: LoopbackRedirectReceiver.TimedOut.self) { _ = try await receiver.next(timeout: .milliseconds(50)) }
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }
}

/// The listener's limits and its checks of the redirect: a cap on open connections, an idle
/// timeout, the state, and IPv6.
@Suite("Loopback redirect receiver: limits, state and IPv6")
struct LoopbackRedirectReceiverLimitTests {
    /// A connected blocking socket to `host`:`port` (IPv4 or IPv6), whose reads give up after
    /// `timeout` seconds.
    static func connectSocket(host: String = "127.0.0.1", port: Int, timeout: Int = 5) throws -> Int32 {
        let six = host.contains(":")
        let fd = socket(six ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EBADF) }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let connected: Int32
        if six {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            _ = inet_pton(AF_INET6, host, &address.sin6_addr)
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
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        return fd
    }

    /// What the server sends until it closes, or `nil` when nothing ended within the socket's
    /// read timeout (the connection is still open).
    static func readUntilClosed(_ fd: Int32) -> String? {
        var answer = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count == 0 { return String(decoding: answer, as: UTF8.self) }
            if count < 0 { return errno == EAGAIN || errno == EWOULDBLOCK ? nil : String(decoding: answer, as: UTF8.self) }
            answer += buffer[0..<count]
        }
    }

    /// Sends `request` on a new connection and returns the answer (empty when none came).
    static func exchange(_ request: String, host: String = "127.0.0.1", port: Int) throws -> String {
        let fd = try connectSocket(host: host, port: port)
        defer { close(fd) }
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        return readUntilClosed(fd) ?? ""
    }

    @Test("40 idle connections against a cap of 16: at most 16 stay open, the oldest are closed first, and the real redirect still gets in")
    func connectionCap() async throws {
        let loop = try EventLoop(name: "loopback-cap")
        let receiver = try await LoopbackRedirectReceiver.start(
            loop: loop, port: 0, path: "/cb", page: "ok", maxConnections: 16, idleTimeout: .seconds(60))
        let port = receiver.port
        let idle = try await Task.detached { try (0..<40).map { _ in try Self.connectSocket(port: port, timeout: 2) } }.value
        defer { idle.forEach { close($0) } }
        let deadline = ContinuousClock.now + .seconds(60)
        while await receiver.openConnectionCount() < min(16, 40), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(200))
        let open = await receiver.openConnectionCount()
        #expect(open <= 16, "\(open) connections open")
        // The first one opened was closed by the listener (end of stream), not left waiting.
        let first = await Task.detached { Self.readUntilClosed(idle[0]) }.value
        #expect(first == "", "the oldest idle connection is still open")
        let page = try await Task.detached { try Self.exchange("GET /cb?code=real HTTP/1.1\r\n\r\n", port: port) }.value
        #expect(page.hasPrefix("HTTP/1.1 200 OK"))
        #expect(try await receiver.next(timeout: .seconds(30)) == "/cb?code=real")
        await receiver.close()
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }

    @Test("a connection that sends no request within the idle timeout is closed")
    func idleTimeout() async throws {
        let loop = try EventLoop(name: "loopback-idle")
        let receiver = try await LoopbackRedirectReceiver.start(loop: loop, port: 0, path: "/cb", page: "ok", idleTimeout: .milliseconds(300))
        let port = receiver.port
        let (outcome, waited) = try await Task.detached { () -> (String?, Duration) in
            let fd = try Self.connectSocket(port: port, timeout: 10)
            defer { close(fd) }
            let started = ContinuousClock.now
            // Half a request head, then nothing.
            _ = Array("GET /cb?co".utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            return (Self.readUntilClosed(fd), ContinuousClock.now - started)
        }.value
        // Closed by the listener (end of stream, no answer), well before the socket's 10 s read
        // timeout; 300 ms plus the sweep's interval when the machine is idle.
        #expect(outcome == "", "the idle connection was still open after 10 s")
        #expect(waited < .seconds(8), "closed after \(waited)")
        #expect(await receiver.openConnectionCount() == 0)
        await receiver.close()
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }

    @Test(
        "a redirect with a forged state, or an error redirect with one, is answered 400 and not delivered; the listener keeps waiting and delivers the real one"
    )
    func forgedStateIsRefused() async throws {
        let loop = try EventLoop(name: "loopback-state")
        let receiver = try await LoopbackRedirectReceiver.start(loop: loop, port: 0, path: "/cb", page: "ok", expectedState: "good-state")
        let port = receiver.port
        for forged in [
            "/cb?code=evil&state=forged", "/cb?code=evil", "/cb?error=access_denied&state=forged", "/cb?error=access_denied&error_description=x",
        ] {
            let answer = try await Task.detached { try Self.exchange("GET \(forged) HTTP/1.1\r\n\r\n", port: port) }.value
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(forged): \(answer)")
        }
        await #expect(throws: LoopbackRedirectReceiver.TimedOut.self) { _ = try await receiver.next(timeout: .milliseconds(200)) }
        let real = try await Task.detached { try Self.exchange("GET /cb?code=abc&state=good-state HTTP/1.1\r\n\r\n", port: port) }.value
        #expect(real.hasPrefix("HTTP/1.1 200 OK"))
        #expect(try await receiver.next(timeout: .seconds(30)) == "/cb?code=abc&state=good-state")
        let refusal = try await Task.detached { try Self.exchange("GET /cb?error=access_denied&state=good-state HTTP/1.1\r\n\r\n", port: port) }.value
        #expect(refusal.hasPrefix("HTTP/1.1 200"))
        #expect(try await receiver.next(timeout: .seconds(30)) == "/cb?error=access_denied&state=good-state")
        await receiver.close()
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }

    @Test("a receiver on ::1 answers over IPv6, and not on 127.0.0.1")
    func listensOnIPv6() async throws {
        let loop = try EventLoop(name: "loopback-v6")
        let receiver = try await LoopbackRedirectReceiver.start(loop: loop, hosts: ["::1"], port: 0, path: "/cb", page: "ok")
        let port = receiver.port
        let page = try await Task.detached { try Self.exchange("GET /cb?code=six HTTP/1.1\r\n\r\n", host: "::1", port: port) }.value
        #expect(page.hasPrefix("HTTP/1.1 200 OK"))
        #expect(try await receiver.next(timeout: .seconds(30)) == "/cb?code=six")
        #expect(throws: POSIXError.self) { _ = try Self.connectSocket(host: "127.0.0.1", port: port) }
        await receiver.close()
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }
}
