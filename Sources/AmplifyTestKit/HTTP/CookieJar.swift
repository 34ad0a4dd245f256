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
            let parts = line.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { continue }
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
                values[name] = String(pair[pair.index(after: equals)...])
                attributes[name] = written
            }
        }
    }

    /// The `Cookie` header value (empty when the jar is).
    public var header: String {
        values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
    }

    /// The `Cookie` header values of a request: none for an empty jar, else one.
    public var headers: [String] { values.isEmpty ? [] : [header] }
}
