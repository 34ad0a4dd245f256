import Amplify
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The control requests of the Python stand-ins (`/control/<name>`, `/control/state`): one
/// HTTP/1.1 exchange over a plain socket to 127.0.0.1, blocking the calling thread briefly. What
/// the stand-ins' launchers share.
enum StandInControl {
    /// `/control/<name>` with `query`, its values percent-encoded, in key order.
    static func target(_ name: String, _ query: [String: String]) -> String {
        guard !query.isEmpty else { return "/control/\(name)" }
        return "/control/\(name)?"
            + query.sorted { $0.key < $1.key }.map {
                "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0.value)"
            }
            .joined(separator: "&")
    }

    /// The JSON body of a request (`nil`: empty).
    static func body(_ json: JSONValue?) -> Data {
        json.flatMap { try? JSONEncoder().encode($0) } ?? Data()
    }

    /// One exchange with the stand-in `name` on `port`; the body of its 200 answer.
    /// - Throws: `what(message)` when the socket cannot connect or send, or the answer is not a 200.
    static func exchange(port: Int, name: String, method: String, target: String, body: Data, error what: (String) -> any Error) throws -> Data {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw what("socket() failed: \(errno)") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw what("cannot connect to the \(name) on port \(port)") }
        let request =
            Data(
                "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
                    .utf8) + body
        try request.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let count = send(socket, raw.baseAddress?.advanced(by: sent), raw.count - sent, 0)
                guard count > 0 else { throw what("send failed") }
                sent += count
            }
        }
        var answer = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            answer.append(contentsOf: buffer[0..<count])
        }
        return try okBody(answer, error: what)
    }

    /// The body of an HTTP answer whose status is 200.
    /// - Throws: `what(message)` for no answer or another status (with the start of its body).
    static func okBody(_ answer: Data, error what: (String) -> any Error) throws -> Data {
        let text = String(decoding: answer, as: UTF8.self)
        guard let headerEnd = text.range(of: "\r\n\r\n") else { throw what("no HTTP answer: \(text.prefix(200))") }
        let status = text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
        let bodyText = String(text[headerEnd.upperBound...])
        guard status == 200 else { throw what("HTTP \(status): \(bodyText.prefix(300))") }
        return Data(bodyText.utf8)
    }
}
