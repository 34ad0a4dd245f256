/// What a server-side auth route reads from an HTTP request, taken by a framework adapter.
public struct AuthRouteRequest: Sendable {
    /// `GET` or `POST` (any other method is answered 405).
    public var method: String
    /// The request's path (without the query).
    public var path: String
    /// The query's parameters, decoded (the first of repeated names).
    public var query: [String: String]
    /// A `POST`'s form (`application/x-www-form-urlencoded`), decoded.
    public var form: [String: String]
    /// Every `Cookie` header value.
    public var cookies: [String]
    /// The `Origin` header, when the browser sent one.
    public var origin: String?
    /// The `Sec-Fetch-Site` header, when the browser sent one (`same-origin`, `cross-site`, …).
    public var fetchSite: String?

    /// A request's parts.
    public init(
        method: String, path: String, query: [String: String] = [:], form: [String: String] = [:], cookies: [String] = [],
        origin: String? = nil, fetchSite: String? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.form = form
        self.cookies = cookies
        self.origin = origin
        self.fetchSite = fetchSite
    }

    /// The fields of a form body (`application/x-www-form-urlencoded`: `+` is a space, `%XX` a
    /// byte); a name without `=` has an empty value, a field that is not valid UTF-8 is dropped,
    /// and the first of repeated names wins.
    public static func formFields(_ body: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.utf8.split(separator: UInt8(ascii: "&")) {
            let text = Substring(pair).replacingOccurrences(of: "+", with: " ")
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = parts.first.flatMap({ AmplifyJSCookies.decode(String($0)) }), !name.isEmpty,
                let value = AmplifyJSCookies.decode(parts.count > 1 ? String(parts[1]) : "")
            else { continue }
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }
}

/// A server-side auth route's answer: a page, or a redirect, with the cookies to set.
public struct AuthRouteResponse: Sendable, Equatable {
    /// The HTTP status (200, 303, 400, …).
    public var status: Int
    /// `Location` of a redirect.
    public var location: String?
    /// `Set-Cookie` values, in order.
    public var setCookies: [String]
    /// The HTML page (empty for a redirect).
    public var html: String

    /// An answer.
    public init(status: Int, location: String? = nil, setCookies: [String] = [], html: String = "") {
        self.status = status
        self.location = location
        self.setCookies = setCookies
        self.html = html
    }

    /// The headers to send besides `Set-Cookie`: `Location`, and for pages the content type and
    /// the headers that keep them out of caches and frames.
    public var headers: [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [("Cache-Control", "no-store")]
        if let location { headers.append(("Location", location)) }
        if !html.isEmpty {
            headers += [
                ("Content-Type", "text/html; charset=utf-8"), ("X-Frame-Options", "DENY"),
                ("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"),
                ("Referrer-Policy", "same-origin"),
            ]
        }
        return headers
    }
}
