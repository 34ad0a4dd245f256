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
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
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
        #expect(try await receiver.next(timeout: .seconds(5)) == "/callback?code=abc&state=xyz")
        await receiver.close()
        await #expect(throws: EventLoopError.self) { _ = try await receiver.next(timeout: .seconds(1)) }
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }

    @Test("A request head over 16 KiB is dropped, a busy port is an error, and a loop shutdown closes an open receiver")
    func limitsAndShutdown() async throws {
        let loop = try EventLoop(name: "loopback")
        let receiver = try await LoopbackRedirectReceiver.start(loop: loop, port: 0, path: "/cb", page: "ok")
        let port = receiver.port
        let huge = try await Task.detached { try Self.exchange("GET /cb?" + String(repeating: "a", count: 20_000) + " HTTP/1.1\r\n\r\n", port: port) }.value
        #expect(huge.isEmpty)
        await #expect(throws: EventLoopError.self) { _ = try await LoopbackRedirectReceiver.start(loop: loop, port: port, path: "/cb", page: "ok") }
        await #expect(throws: LoopbackRedirectReceiver.TimedOut.self) { _ = try await receiver.next(timeout: .milliseconds(50)) }
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }
}
