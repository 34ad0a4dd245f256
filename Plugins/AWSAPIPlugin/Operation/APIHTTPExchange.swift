import AWSPluginsCore
import Amplify
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends one HTTP request of the plugin: runs the API's interceptors, authorizes (signs) the
/// result, sends it with the HTTP client on the loop, and for `AMAZON_COGNITO_USER_POOLS` tries
/// once more with refreshed tokens after a 401.
struct APIHTTPExchange: Sendable {
    let http: HTTPClient
    let sources: APIAuthSources
    let interceptors: @Sendable (String) -> [any URLRequestInterceptor]
    let timeout: Duration
    let trustedCertificatesFile: String?

    /// The response (any status). `target` is `url`'s, when the caller has it already (the
    /// endpoint's own, read at configuration).
    /// - Throws: `APIError` for an authorization that cannot be made, an interceptor's error,
    ///   or a network failure.
    /// `token`, when given, is sent as the mode's token instead of asking the mode's source (an
    /// Events call's `authToken`); it is not refreshed after a 401.
    func send(
        endpoint: APIEndpointConfiguration, method: String, url: URL, target: RequestTarget? = nil, headers: [(name: String, value: String)],
        body: [UInt8], mode: AWSAuthorizationType, token: String? = nil
    ) async throws -> HTTPResponse {
        var response = try await attempt(
            endpoint: endpoint, method: method, url: url, target: target, headers: headers, body: body, mode: mode, token: token, forceRefresh: false)
        if response.status == 401, mode == .amazonCognitoUserPools, token == nil {
            response = try await attempt(
                endpoint: endpoint, method: method, url: url, target: target, headers: headers, body: body, mode: mode, token: nil, forceRefresh: true
            )
        }
        return response
    }

    private func attempt(
        endpoint: APIEndpointConfiguration, method: String, url: URL, target: RequestTarget?, headers: [(name: String, value: String)],
        body: [UInt8], mode: AWSAuthorizationType, token: String?, forceRefresh: Bool
    ) async throws -> HTTPResponse {
        let authorization = try await PreparedAuthorization.prepare(
            mode: mode, endpoint: endpoint, sources: sources, token: token, forceRefresh: forceRefresh)
        let interceptors = self.interceptors(endpoint.name)
        guard !interceptors.isEmpty else {
            // No interceptor: no URLRequest round trip.
            guard let target = target ?? RequestTarget(url) else {
                throw APIError.invalidURL("The request URL \(url) is not valid.", "Check the API's endpoint and the request's path.")
            }
            return try await sign(authorization, endpoint: endpoint, method: method, url: url, target: target, headers: headers, body: body)
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = method
        for (name, value) in headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if !body.isEmpty { urlRequest.httpBody = Data(body) }
        for interceptor in interceptors {
            do {
                urlRequest = try await interceptor.intercept(urlRequest)
            } catch let error as APIError {
                throw error
            } catch {
                throw APIError.operationError(
                    "An interceptor of the API '\(endpoint.name)' (\(type(of: interceptor))) failed: \(error)", "See the interceptor's error.", error)
            }
        }
        guard let finalURL = urlRequest.url, let target = RequestTarget(finalURL) else {
            throw APIError.invalidURL("The request to '\(endpoint.name)' has no URL after its interceptors ran.", "Check the interceptors.")
        }
        return try await sign(
            authorization, endpoint: endpoint, method: urlRequest.httpMethod ?? method, url: finalURL, target: target,
            headers: (urlRequest.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            body: urlRequest.httpBody.map { [UInt8]($0) } ?? [])
    }

    /// Authorizes (signs) the request and sends it.
    private func sign(
        _ authorization: PreparedAuthorization, endpoint: APIEndpointConfiguration, method: String, url finalURL: URL, target: RequestTarget,
        headers: [(name: String, value: String)], body finalBody: [UInt8]
    ) async throws -> HTTPResponse {
        // curl writes the Host header itself unless given one: the (signed) value goes out, once, as `Host`.
        var sent: [(name: String, value: String)]
        if !authorization.signs {
            // No signature: the mode's header (if any) replaces any of that name, as setHeader does.
            let plain = authorization.plainHeader
            sent = []
            sent.reserveCapacity(headers.count + 2)
            for header in headers
            where !header.name.equalsIgnoringASCIICase("host") && !(plain.map { header.name.equalsIgnoringASCIICase($0.name) } ?? false) {
                sent.append(header)
            }
            if let plain { sent.append(plain) }
        } else {
            var signedHeaders = [(name: String, value: String)]()
            signedHeaders.reserveCapacity(headers.count + 5)
            signedHeaders.append(("host", target.host))
            signedHeaders.append(contentsOf: headers)
            var signable = SignableRequest(method: method, path: target.path, query: target.query, headers: signedHeaders)
            authorization.authorize(&signable, body: finalBody)
            sent = signable.headers
            sent.removeAll { $0.name.equalsIgnoringASCIICase("host") }
        }
        sent.append(("Host", target.host))
        var request = HTTPRequest(
            method: method, url: finalURL, headers: sent, body: finalBody.isEmpty ? .empty : .bytes(finalBody), timeout: timeout)
        request.trustedCertificatesFile = trustedCertificatesFile
        request.urlText = target.urlText
        do {
            return try await http.send(request)
        } catch let error as HTTPClientError {
            throw APIError.networkError("The request to the API '\(endpoint.name)' (\(finalURL.absoluteString)) failed: \(error.message)", nil, error)
        }
    }
}

/// What signing needs from a request URL: its path as it goes on the wire, its query parameters
/// and its `Host` value. Made once for an API's endpoint; for other URLs per request.
struct RequestTarget: Sendable, Equatable {
    let path: String
    let query: [(name: String, value: String)]
    let host: String
    /// The URL's text, as curl is given it.
    let urlText: String

    /// `nil` when `url` is not a URL with components.
    init?(_ url: URL) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        urlText = url.absoluteString
        path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        query = (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }
        host = url.hostHeader
    }

    static func == (lhs: RequestTarget, rhs: RequestTarget) -> Bool {
        lhs.path == rhs.path && lhs.host == rhs.host && lhs.query.elementsEqual(rhs.query) { $0.name == $1.name && $0.value == $1.value }
    }
}
