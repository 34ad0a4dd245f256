import Foundation

/// A browser's cookies for one site, as tests need them: `Set-Cookie` values applied in order
/// (`Max-Age=0` deletes), and the `Cookie` header the next request sends. Attributes are kept
/// per cookie so a test can check them (`HttpOnly`, `SameSite`, `Path`). Paths and domains are not
/// matched: every cookie is sent.
public struct CookieJar: Sendable {
    /// Each cookie's value, by name.
    public private(set) var values: [String: String] = [:]
    /// Each cookie's attributes as written (`["path": "/", "httponly": "", "max-age": "300"]`), names lowercased.
    public private(set) var attributes: [String: [String: String]] = [:]

    /// An empty jar.
    public init() {}

    /// Applies `setCookies` in order.
    public mutating func apply(_ setCookies: [String]) {
        for line in setCookies {
            let parts = line.utf8.split(separator: UInt8(ascii: ";")).map { Self.trimmed(Substring($0)) }
            guard let pair = parts.first, let equals = pair.utf8.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = String(pair[..<equals])
            var written: [String: String] = [:]
            for attribute in parts.dropFirst() {
                let pieces = attribute.split(separator: "=", maxSplits: 1)
                guard let key = pieces.first else { continue }
                written[key.lowercased()] = pieces.count > 1 ? String(pieces[1]) : ""
            }
            if written["max-age"] == "0" {
                values[name] = nil
                attributes[name] = nil
            } else {
                values[name] = String(pair[pair.utf8.index(after: equals)...])
                attributes[name] = written
            }
        }
    }

    /// `text` without spaces at either end (byte by byte: a token cookie is kilobytes long).
    static func trimmed(_ text: Substring) -> Substring {
        var result = text
        while result.utf8.first == UInt8(ascii: " ") { result = result.dropFirst() }
        while result.utf8.last == UInt8(ascii: " ") { result = result.dropLast() }
        return result
    }

    /// The `Cookie` header value (empty when the jar is).
    public var header: String {
        values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
    }

    /// The `Cookie` header values of a request: none for an empty jar, else one.
    public var headers: [String] { values.isEmpty ? [] : [header] }
}
