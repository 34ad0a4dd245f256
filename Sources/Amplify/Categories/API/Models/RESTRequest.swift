import Foundation

/// A REST request for `Amplify.API.get(request:)` and the other methods: the API by its name in the
/// configuration (`nil` for the only REST API), a path below its endpoint, headers, query
/// parameters and a body.
public final class RESTRequest: Sendable {
    /// The API's name in the configuration; `nil` for the only REST API.
    public let apiName: String?
    /// The path below the API's endpoint (`/items/42`).
    public let path: String?
    /// Headers to send.
    public let headers: [String: String]?
    /// Query parameters to add to the URL.
    public let queryParameters: [String: String]?
    /// The body.
    public let body: Data?

    /// A request.
    /// - Parameters:
    ///   - apiName: the API's name in the configuration; `nil` for the only REST API.
    ///   - path: the path below the API's endpoint.
    ///   - headers: headers to send.
    ///   - queryParameters: query parameters to add to the URL.
    ///   - body: the body.
    public init(
        apiName: String? = nil, path: String? = nil, headers: [String: String]? = nil, queryParameters: [String: String]? = nil, body: Data? = nil
    ) {
        self.apiName = apiName
        self.path = path
        self.headers = headers
        self.queryParameters = queryParameters
        self.body = body
    }
}
