import AmplifyWebSocket
import Foundation
import Testing

/// RFC 6455 framing on its own: the RFC's own examples, every length form, masking,
/// fragmentation with control frames between fragments, UTF-8, close codes, and every rule a
/// peer can break, each refused with the close code the RFC names.
@Suite("WebSocket framing")
struct WebSocketFramingTests {
    private func decodeAll(_ bytes: [UInt8], masked: Bool = false, limit: Int = 1 << 20) throws -> [WebSocketFrame] {
        var decoder = WebSocketFrameDecoder(maximumFrameSize: limit, expectsMaskedFrames: masked)
        decoder.append(bytes)
        var frames: [WebSocketFrame] = []
        while let frame = try decoder.nextFrame() { frames.append(frame) }
        return frames
    }

    private func failure(_ bytes: [UInt8], masked: Bool = false, limit: Int = 1 << 20) -> WebSocketError? {
        do {
            _ = try decodeAll(bytes, masked: masked, limit: limit)
            return nil
        } catch {
            return error as? WebSocketError
        }
    }

    @Test("the examples of RFC 6455 §5.7 encode and decode byte for byte")
    func rfcExamples() throws {
        let hello = Array("Hello".utf8)
        let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        #expect(WebSocketFrame(opcode: .text, payload: hello).encoded(maskingKey: nil) == [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
        let masked: [UInt8] = [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        #expect(WebSocketFrame(opcode: .text, payload: hello).encoded(maskingKey: key) == masked)
        #expect(try decodeAll(masked, masked: true) == [WebSocketFrame(opcode: .text, payload: hello)])
        let fragmented: [UInt8] = [0x01, 0x03, 0x48, 0x65, 0x6C, 0x80, 0x02, 0x6C, 0x6F]
        #expect(WebSocketFrame.message(.text, hello, fragmentSize: 3).flatMap { $0.encoded(maskingKey: nil) } == fragmented)
        #expect(
            try decodeAll(fragmented) == [
                WebSocketFrame(fin: false, opcode: .text, payload: Array("Hel".utf8)),
                WebSocketFrame(opcode: .continuation, payload: Array("lo".utf8)),
            ])
        #expect(WebSocketFrame(opcode: .ping, payload: hello).encoded(maskingKey: nil) == [0x89, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
        #expect(
            WebSocketFrame(opcode: .pong, payload: hello).encoded(maskingKey: key) == [
                0x8A, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58,
            ])
        #expect(
            Array(WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 0, count: 256)).encoded(maskingKey: nil).prefix(4)) == [
                0x82, 0x7E, 0x01, 0x00,
            ])
        #expect(
            Array(WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 0, count: 65536)).encoded(maskingKey: nil).prefix(10))
                == [0x82, 0x7F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00])
    }

    @Test("7-, 16- and 64-bit lengths at each boundary round-trip, masked and unmasked, even fed one byte at a time")
    func lengthsRoundTrip() throws {
        for count in [0, 1, 125, 126, 127, 65535, 65536, 70001] {
            let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let frame = WebSocketFrame(opcode: .binary, payload: payload)
            let header = count <= 125 ? 2 : count <= 65535 ? 4 : 10
            #expect(frame.encoded(maskingKey: nil).count == header + count)
            #expect(try decodeAll(frame.encoded(maskingKey: nil)) == [frame], "\(count)")
            let masked = frame.encoded(maskingKey: [1, 2, 3, 4])
            #expect(masked.count == header + 4 + count)
            #expect(try decodeAll(masked, masked: true) == [frame], "\(count) masked")
        }
        var decoder = WebSocketFrameDecoder()
        let bytes = WebSocketFrame(opcode: .text, payload: Array(repeating: 65, count: 300)).encoded(maskingKey: nil)
        var frames: [WebSocketFrame] = []
        for byte in bytes {
            decoder.append([byte])
            if let frame = try decoder.nextFrame() { frames.append(frame) }
        }
        #expect(frames.count == 1)
        #expect(frames.first?.payload.count == 300)
        #expect(!decoder.hasPartialFrame)
    }

    @Test("fragments join into one message with a ping between them; UTF-8 split across fragments is valid")
    func fragmentation() throws {
        let text = Array("café ☕ and more".utf8)
        let split = 4  // inside "é"
        let frames = [
            WebSocketFrame(fin: false, opcode: .text, payload: Array(text[..<split])),
            WebSocketFrame(opcode: .ping, payload: [9]),
            WebSocketFrame(fin: false, opcode: .continuation, payload: Array(text[split..<10])),
            WebSocketFrame(opcode: .continuation, payload: Array(text[10...])),
        ]
        var assembler = WebSocketMessageAssembler()
        var messages: [WebSocketMessage] = []
        for frame in try decodeAll(frames.flatMap { $0.encoded(maskingKey: nil) }) {
            if let message = try assembler.receive(frame) { messages.append(message) }
        }
        #expect(messages == [.ping([9]), .text("café ☕ and more")])
        #expect(!assembler.isInsideMessage)
        #expect(WebSocketFrame.message(.binary, [1, 2, 3, 4, 5], fragmentSize: 2).map(\.opcode) == [.binary, .continuation, .continuation])
    }

    @Test("frame-level violations are refused with protocolViolation (close code 1002)")
    func frameViolations() {
        let cases: [(String, [UInt8], Bool)] = [
            ("a masked frame from the server", WebSocketFrame(opcode: .text, payload: [65]).encoded(maskingKey: [1, 2, 3, 4]), false),
            ("an unmasked frame from a client", WebSocketFrame(opcode: .text, payload: [65]).encoded(maskingKey: nil), true),
            ("reserved bits", [0xC1, 0x01, 0x41], false),
            ("an unknown opcode", [0x83, 0x00], false),
            ("a fragmented ping", [0x09, 0x00], false),
            ("a ping of 126 bytes", [0x89, 0x7E, 0x00, 0x7E] + [UInt8](repeating: 0, count: 126), false),
            ("a 64-bit length with its top bit set", [0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 1], false),
        ]
        for (name, bytes, masked) in cases {
            let error = failure(bytes, masked: masked)
            #expect(error?.kind == .protocolViolation, "\(name)")
            #expect(error?.closeCode == 1002, "\(name)")
        }
    }

    @Test("an oversized frame is refused from its header, before its payload arrives (close code 1009); so is an oversized fragmented message")
    func oversized() throws {
        var decoder = WebSocketFrameDecoder(maximumFrameSize: 1000)
        decoder.append([0x82, 0x7F, 0, 0, 0, 0, 0x7F, 0xFF, 0xFF, 0xFF])  // 2 GiB announced, nothing sent
        #expect(throws: WebSocketError(.messageTooBig, "A frame of 2147483647 bytes is larger than the limit of 1000.")) { try decoder.nextFrame() }
        #expect(
            failure(WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 1, count: 1001)).encoded(maskingKey: nil), limit: 1000)?.closeCode
                == 1009)
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 10)
        #expect(try assembler.receive(WebSocketFrame(fin: false, opcode: .binary, payload: [UInt8](repeating: 0, count: 6))) == nil)
        #expect(throws: WebSocketError.self) {
            try assembler.receive(WebSocketFrame(opcode: .continuation, payload: [UInt8](repeating: 0, count: 6)))
        }
    }

    @Test(
        "message-level violations: a stray continuation and a new message inside a fragmented one (1002); bad UTF-8 in text or a close reason (1007)")
    func messageViolations() throws {
        var stray = WebSocketMessageAssembler()
        #expect(throws: WebSocketError.self) { try stray.receive(WebSocketFrame(opcode: .continuation, payload: [])) }
        var interleaved = WebSocketMessageAssembler()
        _ = try interleaved.receive(WebSocketFrame(fin: false, opcode: .text, payload: [65]))
        let error = #expect(throws: WebSocketError.self) { try interleaved.receive(WebSocketFrame(opcode: .binary, payload: [1])) }
        #expect(error?.closeCode == 1002)
        var utf8 = WebSocketMessageAssembler()
        let bad = #expect(throws: WebSocketError.self) { try utf8.receive(WebSocketFrame(opcode: .text, payload: [0xC3, 0x28])) }
        #expect(bad?.kind == .invalidUTF8)
        #expect(bad?.closeCode == 1007)
        let overlong = #expect(throws: WebSocketError.self) { try utf8.receive(WebSocketFrame(opcode: .text, payload: [0xC0, 0xAF])) }
        #expect(overlong?.kind == .invalidUTF8)
        let surrogate = #expect(throws: WebSocketError.self) { try utf8.receive(WebSocketFrame(opcode: .text, payload: [0xED, 0xA0, 0x80])) }
        #expect(surrogate?.kind == .invalidUTF8)
        let reason = #expect(throws: WebSocketError.self) { try utf8.receive(WebSocketFrame(opcode: .close, payload: [0x03, 0xE8, 0xFF])) }
        #expect(reason?.kind == .invalidUTF8)
    }

    @Test("close frames: empty, code with reason, and the codes that may not be sent")
    func closeFrames() throws {
        var assembler = WebSocketMessageAssembler()
        #expect(try assembler.receive(WebSocketFrame(opcode: .close, payload: [])) == .close(code: nil, reason: ""))
        #expect(
            try assembler.receive(WebSocketFrame(opcode: .close, payload: WebSocketFrame.closePayload(code: 4000, reason: "bye")))
                == .close(code: 4000, reason: "bye"))
        for code: UInt16 in [999, 1004, 1005, 1006, 1015, 2000, 5000] {
            #expect(throws: WebSocketError.self, "\(code)") {
                try assembler.receive(WebSocketFrame(opcode: .close, payload: WebSocketFrame.closePayload(code: code, reason: "")))
            }
        }
        #expect(throws: WebSocketError.self) { try assembler.receive(WebSocketFrame(opcode: .close, payload: [0x03])) }
    }

    @Test("the handshake: RFC 6455's accept example, a 101 with the right accept and subprotocol, and every refusal")
    func handshake() throws {
        #expect(WebSocketHandshake.acceptValue(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        let url = try #require(URL(string: "wss://example.com:8443/graphql/realtime?header=abc&payload=e30="))
        let handshake = WebSocketHandshake(
            url: url, subprotocols: ["graphql-ws", "header-xyz"], headers: [("Origin", "https://x")], key: "dGhlIHNhbXBsZSBub25jZQ==")
        let request = String(decoding: handshake.request, as: UTF8.self)
        #expect(
            request.hasPrefix(
                "GET /graphql/realtime?header=abc&payload=e30= HTTP/1.1\r\nHost: example.com:8443\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"))
        #expect(request.contains("Sec-WebSocket-Protocol: graphql-ws, header-xyz\r\n"))
        #expect(request.hasSuffix("Origin: https://x\r\n\r\n"))
        func answer(_ text: String) -> [UInt8] { Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8) }
        let good =
            answer(
                "HTTP/1.1 101 Switching Protocols\nUpgrade: websocket\nConnection: Upgrade\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\nSec-WebSocket-Protocol: graphql-ws\n\n"
            ) + [0x81, 0x00]
        #expect(try handshake.parseResponse(Array(good.prefix(20))) == nil)
        let response = try #require(try handshake.parseResponse(good))
        #expect(response.subprotocol == "graphql-ws")
        #expect(response.remainder == [0x81, 0x00])
        let refused = #expect(throws: WebSocketError.self) {
            try handshake.parseResponse(answer("HTTP/1.1 403 Forbidden\nContent-Length: 9\n\nForbidden"))
        }
        #expect(refused?.httpStatus == 403)
        #expect(refused?.message == "The server refused the WebSocket upgrade with HTTP 403: Forbidden")
        #expect(throws: WebSocketError.self) {
            try handshake.parseResponse(
                answer("HTTP/1.1 101 Switching Protocols\nUpgrade: websocket\nConnection: Upgrade\nSec-WebSocket-Accept: wrong=\n\n"))
        }
        #expect(throws: WebSocketError.self) {
            try handshake.parseResponse(
                answer(
                    "HTTP/1.1 101 Switching Protocols\nUpgrade: websocket\nConnection: Upgrade\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\nSec-WebSocket-Protocol: chat\n\n"
                ))
        }
        #expect(throws: WebSocketError.self) { try handshake.parseResponse([UInt8](repeating: 65, count: 20000)) }
    }
}
