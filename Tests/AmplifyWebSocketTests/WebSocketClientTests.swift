import AmplifyConcurrency
import AmplifyEventLoop
import AmplifyTestKit
import AmplifyWebSocket
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The client over real sockets against a peer written with Python's standard library
/// (`WebSocketTestServer`, `ws_test_server.py` in AmplifyTestKit): ws and wss (a self-signed certificate trusted for the test), echo
/// with masking and fragmentation both ways, pings, the close handshake, and every way a
/// server can misbehave, each ending with a clear error and no hang.
@Suite("WebSocket client")
struct WebSocketClientTests {
    /// Runs a client on a loop of its own: `script` is called on the loop thread with each event
    /// (and the client, to act on it); returns every event once `closed` arrives.
    private func run(
        _ url: URL, options: WebSocketClient.Options = WebSocketClient.Options(), timeout: Duration = .seconds(60),
        _ script: @escaping @Sendable (WebSocketClient, WebSocketClient.Event) -> Void
    ) async throws -> [WebSocketClient.Event] {
        let loop = try EventLoop(name: "ws-test")
        defer { try? loop.shutdown() }
        let events = Locked<[WebSocketClient.Event]>([])
        let done = Locked<CheckedContinuation<Void, Never>?>(nil)
        let finished = Locked(false)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            done.withLock { $0 = continuation }
            try? loop.execute {
                let holder = ClientHolder()
                let client = WebSocketClient(loop: loop, url: url, options: options) { event in
                    events.withLock { $0.append(event) }
                    if let client = holder.client { script(client, event) }
                    if case .closed = event {
                        holder.client = nil
                        if finishFirst(finished) { done.withLock { $0 }?.resume() }
                    }
                }
                holder.client = client
                client.connect()
            }
            _ = try? loop.scheduleTimer(after: timeout) {
                if finishFirst(finished) {
                    events.withLock { $0.append(.closed(.failed(WebSocketError(.timeout, "the test timed out")))) }
                    done.withLock { $0 }?.resume()
                }
            }
        }
        return events.value
    }

    private func failure(_ events: [WebSocketClient.Event]) -> WebSocketError? {
        if case .closed(.failed(let error))? = events.last { return error }
        return nil
    }

    @Test("ws and wss: open with the chosen subprotocol, echo text and binary (fragmented when sent), answer the server's ping, close cleanly")
    func echoOverWSAndWSS() async throws {
        for tls in [false, true] {
            let peer = try await WebSocketTestServer.start(tls: tls)
            defer { peer.stop() }
            let big = [UInt8]((0..<70_000).map { UInt8(truncatingIfNeeded: $0) })
            let options = WebSocketClient.Options(
                subprotocols: ["graphql-ws"], trustedCertificatesFile: peer.certificateFile, outgoingFragmentSize: 16_384)
            let events = try await run(peer.url("/echo"), options: options) { client, event in
                switch event {
                case .open:
                    client.send(text: "hello ✓")
                    client.send(binary: big)
                    client.ping([7])
                case .pong: client.close(code: 1000, reason: "done")
                default: break
                }
            }
            #expect(
                events == [.open(subprotocol: "graphql-ws"), .text("hello ✓"), .binary(big), .pong([7]), .closed(.clean(code: 1000, reason: ""))],
                "tls: \(tls)")
        }
    }

    @Test("a fragmented message with a ping between its fragments arrives whole, and the ping is answered")
    func fragmentedFromServer() async throws {
        let peer = try await WebSocketTestServer.start()
        defer { peer.stop() }
        let events = try await run(peer.url("/fragmented")) { client, event in
            if case .text = event { client.close() }
        }
        #expect(events == [.open(subprotocol: nil), .text("héllo wörld"), .closed(.clean(code: 1000, reason: ""))])
        let pinged = try await run(peer.url("/ping")) { client, event in
            if case .text = event { client.close() }
        }
        #expect(pinged.contains(.text("pong:p1")))
    }

    @Test("the server's close frame is answered and ends the connection cleanly with its code and reason")
    func serverCloses() async throws {
        let peer = try await WebSocketTestServer.start()
        defer { peer.stop() }
        #expect(try await run(peer.url("/close")) { _, _ in } == [.open(subprotocol: nil), .closed(.clean(code: 4000, reason: "bye"))])
    }

    @Test("a close in the middle of a frame, a masked frame, a 2 GiB frame and text that is not UTF-8 each end with their error")
    func misbehavingServers() async throws {
        let peer = try await WebSocketTestServer.start()
        defer { peer.stop() }
        #expect(failure(try await run(peer.url("/midframe")) { _, _ in })?.kind == .closedMidFrame)
        #expect(failure(try await run(peer.url("/masked")) { _, _ in })?.kind == .protocolViolation)
        let huge = failure(try await run(peer.url("/huge"), options: WebSocketClient.Options(maximumFrameSize: 1 << 20)) { _, _ in })
        #expect(huge?.kind == .messageTooBig)
        #expect(failure(try await run(peer.url("/badutf8")) { _, _ in })?.kind == .invalidUTF8)
    }

    @Test("a refused upgrade, a server that never answers, nothing listening, and an untrusted certificate fail in time")
    func failuresToOpen() async throws {
        let peer = try await WebSocketTestServer.start()
        defer { peer.stop() }
        let refused = failure(try await run(peer.url("/refuse")) { _, _ in })
        #expect(refused?.kind == .handshakeFailed)
        #expect(refused?.httpStatus == 403)
        let started = ContinuousClock.now
        let silent = failure(try await run(peer.url("/silent"), options: WebSocketClient.Options(openTimeout: .milliseconds(300))) { _, _ in })
        #expect(silent?.kind == .timeout)
        // The peer never answers: only the 300 ms open timeout ends it (the bound allows for load).
        #expect(ContinuousClock.now - started < .seconds(20))
        let nobody = failure(try await run(try #require(URL(string: "ws://127.0.0.1:9/"))) { _, _ in })
        #expect(nobody?.kind == .connectionFailed)
        let secure = try await WebSocketTestServer.start(tls: true)
        defer { secure.stop() }
        let untrusted = failure(try await run(secure.url("/echo")) { _, _ in })
        #expect(untrusted?.kind == .connectionFailed)
        #expect(untrusted?.message.contains("certificate") == true, "\(String(describing: untrusted))")
    }
}

/// Sets `flag` and says whether it was clear.
private func finishFirst(_ flag: Locked<Bool>) -> Bool {
    flag.withLock { value in
        defer { value = true }
        return !value
    }
}

/// Holds the client for its own event callback (loop thread only).
final class ClientHolder: @unchecked Sendable {
    // @unchecked Sendable: created and used on the loop thread only.
    var client: WebSocketClient?
}
