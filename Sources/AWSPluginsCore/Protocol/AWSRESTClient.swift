import Amplify
import Foundation

/// One call to a REST-XML service (S3): method, wire path, query, headers and body.
public struct AWSRESTRequest: Sendable {
    /// `GET`, `PUT`, `POST`, `DELETE`, `HEAD`.
    public var method: String
    /// The path as it goes on the wire, percent-encoded (`/bucket/photos/my%20cat.jpg`); see
    /// `S3Addressing/objectPath(bucket:key:)`.
    public var path: String
    /// Query parameters, decoded (`list-type=2`, `uploads`, `partNumber=3`).
    public var query: [(name: String, value: String)]
    /// Extra headers (`Content-Type`, `Range`, `x-amz-meta-*`).
    public var headers: [(name: String, value: String)]
    /// The body. Bytes are hashed into the signature; a file is streamed and signed as
    /// `UNSIGNED-PAYLOAD`.
    public var body: HTTPBody
    /// Where a 2xx answer's body goes: memory (`nil`) or this file, streamed.
    public var responseFile: String?
    /// Called on the loop thread with (bytes sent, bytes to send).
    public var uploadProgress: (@Sendable (Int64, Int64) -> Void)?
    /// Called on the loop thread with (bytes received, bytes expected).
    public var downloadProgress: (@Sendable (Int64, Int64) -> Void)?

    /// The S3 operation this request is (`PutObject`, `UploadPart`, `ListObjectsV2`, ...), from
    /// its method and query: what metrics and logs call it.
    public var operationName: String {
        let names = Set(query.map(\.name))
        switch method.uppercased() {
        case "GET": return names.contains("list-type") ? "ListObjectsV2" : names.contains("uploadId") ? "ListParts" : "GetObject"
        case "HEAD": return "HeadObject"
        case "PUT": return names.contains("partNumber") ? "UploadPart" : "PutObject"
        case "POST": return names.contains("uploads") ? "CreateMultipartUpload" : names.contains("uploadId") ? "CompleteMultipartUpload" : "PostObject"
        case "DELETE": return names.contains("uploadId") ? "AbortMultipartUpload" : "DeleteObject"
        default: return method.uppercased()
        }
    }

    /// A request.
    public init(
        method: String, path: String, query: [(name: String, value: String)] = [],
        headers: [(name: String, value: String)] = [], body: HTTPBody = .empty, responseFile: String? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.responseFile = responseFile
    }
}

/// Calls a REST-XML service (S3): each attempt signed with SigV4 under S3's rules, retried per
/// ``RetryPolicy`` (each retry logged at debug level, category "AWS"), error answers mapped to
/// ``AWSPluginsError`` by ``AWSXMLError``; and presigned URLs.
public struct AWSRESTClient: Sendable {
    /// The HTTP client (and so the loop) requests go through.
    public let http: HTTPClient
    /// Scheme, host and port of the service (`https://my-bucket.s3.us-east-1.amazonaws.com`,
    /// `http://127.0.0.1:5000`); request paths are appended to its path.
    public let endpoint: URL
    /// The signing region.
    public let region: String
    /// The signing name (`s3`).
    public let signingName: String
    /// Where requests get their keys.
    public let credentials: any AWSCredentialsProvider
    /// When to retry.
    public let retryPolicy: RetryPolicy
    /// How long one attempt may take (`nil`: no limit, for large streamed bodies).
    public let attemptTimeout: Duration?

    /// A client for one service endpoint.
    public init(
        http: HTTPClient, endpoint: URL, region: String, signingName: String = "s3",
        credentials: any AWSCredentialsProvider, retryPolicy: RetryPolicy = RetryPolicy(), attemptTimeout: Duration? = nil
    ) {
        self.http = http
        self.endpoint = endpoint
        self.region = region
        self.signingName = signingName
        self.credentials = credentials
        self.retryPolicy = retryPolicy
        self.attemptTimeout = attemptTimeout
    }

    /// Sends `request`, retrying what ``retryPolicy`` retries.
    ///
    /// - Returns: the 2xx answer (its body empty when it went to `responseFile`).
    /// - Throws: ``AWSPluginsError`` for the service's error answer (after retries, for
    ///   retryable ones), ``HTTPClientError`` when no answer came, or the credentials provider's
    ///   error.
    public func send(_ request: AWSRESTRequest) async throws -> HTTPResponse {
        try await retryPolicy.send("\(request.method) \(request.path)", service: signingName, operation: request.operationName, with: http) {
            try await signed(request)
        } parseError: { response in
            AWSXMLError.parse(status: response.status, body: Data(response.body))
        }
    }

    /// Sends `request` and parses the answer's XML body.
    ///
    /// - Throws: what ``send(_:)`` throws, and ``AWSPluginsError`` (`MalformedXML`) for an
    ///   answer that is not XML.
    public func sendForXML(_ request: AWSRESTRequest) async throws -> XMLElementTree {
        let response = try await send(request)
        let root = try XMLElementTree.parse(Data(response.body))
        // S3 may answer 200 and still report an error in the body (CompleteMultipartUpload, CopyObject).
        if root.name == "Error" { throw AWSXMLError.parse(status: 200, body: Data(response.body)) }
        return root
    }

    /// A URL that performs `method` on `path` without credentials for `expires` seconds
    /// (1 to 604 800), signed with the provider's current keys (temporary keys end it sooner).
    ///
    /// - Throws: the credentials provider's error, or ``AWSPluginsError`` (`InvalidEndpoint`)
    ///   when the URL cannot be formed.
    public func presignedURL(method: String = "GET", path: String, query: [(name: String, value: String)] = [], expires: Int) async throws -> URL {
        let signer = SigV4Signer(credentials: try await credentials.credentials(), region: region, service: signingName)
        let signable = SignableRequest(method: method, path: fullPath(path), query: query, headers: [("Host", hostHeader)])
        return try url(path: path, query: signer.presign(signable, expires: expires))
    }

    private var hostHeader: String {
        endpoint.port.map { "\(endpoint.host ?? ""):\($0)" } ?? (endpoint.host ?? "")
    }

    private func fullPath(_ path: String) -> String {
        let base = endpoint.path.hasSuffix("/") ? String(endpoint.path.dropLast()) : endpoint.path
        return base + (path.hasPrefix("/") ? path : "/" + path)
    }

    private func url(path: String, query: [(name: String, value: String)]) throws -> URL {
        var text = "\(endpoint.scheme ?? "https")://\(hostHeader)\(fullPath(path))"
        if !query.isEmpty {
            text += "?" + query.map { pair in
                pair.value.isEmpty
                    ? URIEncoding.encode(pair.name)
                    : "\(URIEncoding.encode(pair.name))=\(URIEncoding.encode(pair.value))"
            }.joined(separator: "&")
        }
        guard let url = URL(string: text) else {
            throw AWSPluginsError(code: "InvalidEndpoint", "'\(text)' is not a valid URL.", "Check the endpoint and the key.")
        }
        return url
    }

    private func signed(_ request: AWSRESTRequest) async throws -> HTTPRequest {
        var signable = SignableRequest(method: request.method, path: fullPath(request.path), query: request.query, headers: [("Host", hostHeader)] + request.headers)
        let payload: SigV4Payload = switch request.body {
        case .empty: .bytes([])
        case .bytes(let bytes): .bytes(bytes)
        case .file, .fileRange: .unsigned
        }
        SigV4Signer(credentials: try await credentials.credentials(), region: region, service: signingName).sign(&signable, payload: payload)
        var http = HTTPRequest(
            method: request.method, url: try url(path: request.path, query: request.query),
            headers: signable.headers, body: request.body, timeout: attemptTimeout, responseFile: request.responseFile)
        http.uploadProgress = request.uploadProgress
        http.downloadProgress = request.downloadProgress
        return http
    }
}
