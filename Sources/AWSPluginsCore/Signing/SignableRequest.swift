/// The parts of an HTTP request that Signature Version 4 covers.
public struct SignableRequest: Sendable, Equatable {
    /// `GET`, `POST`, ...
    public var method: String
    /// The path as it goes on the wire (already percent-encoded where needed), e.g. `/my%20key`.
    public var path: String
    /// Query parameters, decoded, in any order (duplicates allowed).
    public var query: [(name: String, value: String)]
    /// Headers in order (duplicates allowed); the signer adds `X-Amz-Date`, `Authorization` and,
    /// for temporary credentials, `X-Amz-Security-Token`.
    public var headers: [(name: String, value: String)]

    /// A request to sign.
    public init(method: String, path: String, query: [(name: String, value: String)] = [], headers: [(name: String, value: String)] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
    }

    /// The value of the first header called `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    /// Sets header `name`, replacing every header of that name (case-insensitive).
    public mutating func setHeader(_ name: String, _ value: String) {
        headers.removeAll { $0.name.equalsIgnoringASCIICase(name) }
        headers.append((name, value))
    }

    /// Compares method, path, query and headers in order.
    public static func == (lhs: SignableRequest, rhs: SignableRequest) -> Bool {
        lhs.method == rhs.method && lhs.path == rhs.path
            && lhs.query.elementsEqual(rhs.query) { $0.name == $1.name && $0.value == $1.value }
            && lhs.headers.elementsEqual(rhs.headers) { $0.name == $1.name && $0.value == $1.value }
    }
}
