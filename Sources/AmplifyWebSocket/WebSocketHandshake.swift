import AmplifyCrypto
import Foundation

/// The opening handshake of RFC 6455 §4: the client's upgrade request and the checks of the
/// server's answer.
public struct WebSocketHandshake: Sendable {
    /// The `Sec-WebSocket-Key`: 16 random bytes, base64.
    public let key: String
    /// The request's bytes.
    public let request: [UInt8]
    /// The subprotocols offered.
    public let subprotocols: [String]

    /// The largest handshake answer read (16 KiB of headers).
    public static let maximumResponseSize = 16 << 10

    /// A handshake for `url` (`ws` or `wss`) offering `subprotocols`, with extra `headers`.
    /// - Parameters:
    ///   - url: the WebSocket URL; its path and query go into the request line.
    ///   - subprotocols: the `Sec-WebSocket-Protocol` values offered, in order of preference.
    ///   - headers: extra headers (names and values must not contain CR or LF).
    ///   - key: the key to use (random by default; fixed only in tests).
    public init(url: URL, subprotocols: [String] = [], headers: [(name: String, value: String)] = [], key: String? = nil) {
        self.key = key ?? Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        self.subprotocols = subprotocols
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        var target = components?.percentEncodedPath ?? "/"
        if target.isEmpty { target = "/" }
        if let query = components?.percentEncodedQuery { target += "?" + query }
        var lines = [
            "GET \(target) HTTP/1.1",
            "Host: \(Self.hostHeader(url))",
            "Upgrade: websocket",
            "Connection: Upgrade",
            "Sec-WebSocket-Key: \(self.key)",
            "Sec-WebSocket-Version: 13",
        ]
        if !subprotocols.isEmpty { lines.append("Sec-WebSocket-Protocol: \(subprotocols.joined(separator: ", "))") }
        for (name, value) in headers where !Self.hasLineBreak(name) && !Self.hasLineBreak(value) {
            lines.append("\(name): \(value)")
        }
        request = Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// The `Sec-WebSocket-Accept` a server must answer for `key`: base64(SHA-1(key + GUID)).
    public static func acceptValue(for key: String) -> String {
        Data(Digest.sha1(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
    }

    /// The server's accepted answer.
    public struct Response: Sendable, Equatable {
        /// The subprotocol the server chose, if any.
        public let subprotocol: String?
        /// The answer's headers (names lower-cased).
        public let headers: [String: String]
        /// Bytes after the answer's headers: the first frames.
        public let remainder: [UInt8]
    }

    /// Checks the answer in `bytes` once its headers are complete.
    /// - Returns: `nil` while the headers are incomplete.
    /// - Throws: ``WebSocketError`` (`handshakeFailed`): a status other than 101 (with the
    ///   status and the start of the body), a missing `Upgrade` or `Connection`, a wrong
    ///   `Sec-WebSocket-Accept`, a subprotocol that was not offered, or headers over 16 KiB.
    public func parseResponse(_ bytes: [UInt8]) throws(WebSocketError) -> Response? {
        guard let end = Self.headerEnd(bytes) else {
            if bytes.count > Self.maximumResponseSize {
                throw WebSocketError(.handshakeFailed, "The server's handshake answer has more than 16 KiB of headers.")
            }
            return nil
        }
        let head = String(decoding: bytes[..<end], as: UTF8.self)
        let remainder = Array(bytes[(end + 4)...])
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw WebSocketError(.handshakeFailed, "The server's answer is not HTTP: \(statusLine.prefix(80))")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        guard status == 101 else {
            let body = String(decoding: remainder.prefix(300), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw WebSocketError(
                .handshakeFailed, "The server refused the WebSocket upgrade with HTTP \(status)\(body.isEmpty ? "" : ": \(body)")", httpStatus: status
            )
        }
        guard headers["upgrade"]?.lowercased() == "websocket" else {
            throw WebSocketError(.handshakeFailed, "The server's 101 answer has no `Upgrade: websocket`.", httpStatus: status)
        }
        guard
            headers["connection"]?.lowercased().split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == "upgrade" })
                == true
        else {
            throw WebSocketError(.handshakeFailed, "The server's 101 answer has no `Connection: Upgrade`.", httpStatus: status)
        }
        guard headers["sec-websocket-accept"] == Self.acceptValue(for: key) else {
            throw WebSocketError(.handshakeFailed, "The server's Sec-WebSocket-Accept does not match the key sent.", httpStatus: status)
        }
        let chosen = headers["sec-websocket-protocol"]
        if let chosen, !subprotocols.contains(chosen) {
            throw WebSocketError(.handshakeFailed, "The server chose the subprotocol '\(chosen)', which was not offered.", httpStatus: status)
        }
        if headers["sec-websocket-extensions"].map({ !$0.isEmpty }) == true {
            throw WebSocketError(
                .handshakeFailed, "The server chose an extension (\(headers["sec-websocket-extensions"] ?? "")), and none was offered.",
                httpStatus: status)
        }
        return Response(subprotocol: chosen, headers: headers, remainder: remainder)
    }

    static func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    static func hostHeader(_ url: URL) -> String {
        let host = url.host ?? ""
        let bracketed = host.contains(":") ? "[\(host)]" : host
        guard let port = url.port else { return bracketed }
        let secure = url.scheme?.lowercased() == "wss"
        return (secure && port == 443) || (!secure && port == 80) ? bracketed : "\(bracketed):\(port)"
    }

    private static func hasLineBreak(_ text: String) -> Bool { text.contains("\r") || text.contains("\n") }
}
