import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// HTTP/1.1 over a plain socket to 127.0.0.1, with the request's bytes exactly as given: for
/// hostile requests no client library would send (CR or NUL in a header, 64 KiB of cookie) and
/// for tests that must see the server's answer byte for byte.
public enum RawHTTP {
    /// A response: status, headers in order, body.
    public struct Response: Sendable {
        public let status: Int
        public let headers: [(name: String, value: String)]
        public let body: String

        /// Every value of `name` (case-insensitive).
        public func values(of name: String) -> [String] {
            headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
        }
    }

    /// A request failed at the socket.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String

        /// A failure saying `description`.
        public init(description: String) { self.description = description }
    }

    /// Sends `method path` with `headers` (and `Connection: close`) and `body`, reads the answer.
    public static func request(
        port: Int, _ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = [], timeout: Duration = .seconds(30)
    ) async throws -> Response {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "PUT" || method == "POST" { text += "Content-Length: \(body.count)\r\n" }
        text += "\r\n"
        return try await send(port: port, Array(text.utf8) + body, timeout: timeout)
    }

    /// Sends `bytes` as they are and reads until the server closes (or `timeout`).
    public static func send(port: Int, _ bytes: [UInt8], timeout: Duration = .seconds(30)) async throws -> Response {
        try await offThePool { try sendBlocking(port: port, bytes, timeout: timeout) }
    }

    private static func sendBlocking(port: Int, _ bytes: [UInt8], timeout: Duration) throws -> Response {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        defer { close(fd) }
        var seconds = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect to 127.0.0.1:\(port): errno \(errno)") }
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            // The server may answer and close before reading everything (a refused oversized head).
            guard written > 0 else { break }
            sent += written
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            received += buffer[0..<count]
        }
        return try parse(received)
    }

    static func parse(_ bytes: [UInt8]) throws -> Response {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let headEnd = text.range(of: "\r\n\r\n") else {
            throw Failure(description: "no complete response head in \(bytes.count) bytes: \(text.prefix(200))")
        }
        let lines = text[..<headEnd.lowerBound].components(separatedBy: "\r\n")
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Failure(description: "bad status line: \(lines.first ?? "")") }
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var body = String(text[headEnd.upperBound...])
        if headers.contains(where: { $0.name.lowercased() == "transfer-encoding" && $0.value.lowercased().contains("chunked") }) {
            body = dechunked(body)
        }
        return Response(status: status, headers: headers, body: body)
    }

    private static func dechunked(_ text: String) -> String {
        var rest = Array(text.utf8)[...]
        var out: [UInt8] = []
        while let lineEnd = rest.firstIndex(of: UInt8(ascii: "\r")), let size = Int(String(decoding: rest[..<lineEnd], as: UTF8.self), radix: 16),
            size > 0
        {
            let start = lineEnd + 2
            guard start + size <= rest.endIndex else { break }
            out += rest[start..<start + size]
            rest = rest[min(rest.endIndex, start + size + 2)...]
        }
        return String(decoding: out, as: UTF8.self)
    }
}
