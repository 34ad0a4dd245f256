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
    /// Bytes of the body already in `responseFile` (a continued download; see
    /// `HTTPRequest.responseFileOffset`). Set by the client; 0 for a new request.
    var responseFileOffset: Int64 = 0

    /// The S3 operation this request is (`PutObject`, `UploadPart`, `ListObjectsV2`, ...), from
    /// its method and query: what metrics and logs call it.
    public var operationName: String {
        let names = Set(query.map(\.name))
        switch method.uppercased() {
        case "GET": return names.contains("list-type") ? "ListObjectsV2" : names.contains("uploadId") ? "ListParts" : "GetObject"
        case "HEAD": return "HeadObject"
        case "PUT": return names.contains("partNumber") ? "UploadPart" : "PutObject"
        case "POST":
            return names.contains("uploads") ? "CreateMultipartUpload" : names.contains("uploadId") ? "CompleteMultipartUpload" : "PostObject"
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
    /// Time limits and retries of every call.
    public let options: AWSClientOptions
    /// When to retry (``options``' policy).
    public var retryPolicy: RetryPolicy { options.retryPolicy }
    /// How long one attempt may take (``options``' deadline; `nil`: no limit).
    public var attemptTimeout: Duration? { options.attemptTimeout }

    /// A client for one service endpoint.
    /// - Parameters:
    ///   - http: the HTTP client requests go through.
    ///   - endpoint: scheme, host and port of the service.
    ///   - region: the signing region.
    ///   - signingName: the signing name.
    ///   - credentials: where requests get their keys.
    ///   - options: time limits and retries (S3's defaults: ``AWSClientOptions/s3Defaults``).
    public init(
        http: HTTPClient, endpoint: URL, region: String, signingName: String = "s3",
        credentials: any AWSCredentialsProvider, options: AWSClientOptions
    ) {
        self.http = http
        self.endpoint = endpoint
        self.region = region
        self.signingName = signingName
        self.credentials = credentials
        self.options = options
    }

    /// A client for one service endpoint with ``AWSClientOptions/s3Defaults``' connect timeout and
    /// low-speed limit, `retryPolicy` and `attemptTimeout`.
    /// - Parameters:
    ///   - http: the HTTP client requests go through.
    ///   - endpoint: scheme, host and port of the service.
    ///   - region: the signing region.
    ///   - signingName: the signing name.
    ///   - credentials: where requests get their keys.
    ///   - retryPolicy: when to retry.
    ///   - attemptTimeout: how long one attempt may take (`nil`: no deadline).
    public init(
        http: HTTPClient, endpoint: URL, region: String, signingName: String = "s3",
        credentials: any AWSCredentialsProvider, retryPolicy: RetryPolicy = RetryPolicy(), attemptTimeout: Duration? = nil
    ) {
        var options = AWSClientOptions.s3Defaults
        options.retryPolicy = retryPolicy
        options.attemptTimeout = attemptTimeout
        self.init(http: http, endpoint: endpoint, region: region, signingName: signingName, credentials: credentials, options: options)
    }

    /// Sends `request`, retrying what ``retryPolicy`` retries, each attempt within ``options``'
    /// connect timeout, low-speed limit and deadline.
    ///
    /// A `GET` whose answer broke off mid-body (the connection cut, a stall, the deadline) is
    /// continued, not started over: the next attempt asks for the bytes still missing (`Range`,
    /// inside the request's own range if it had one) of the same version (`If-Match` on the
    /// first answer's `ETag`, so an object replaced meanwhile fails with `PreconditionFailed`
    /// instead of joining two versions), appending to what arrived in memory or in the response
    /// file. The answer returned is the first one's status and headers with the whole body.
    ///
    /// - Returns: the 2xx answer (its body empty when it went to `responseFile`).
    /// - Throws: ``AWSPluginsError`` for the service's error answer (after retries, for
    ///   retryable ones), ``HTTPClientError`` when no answer came (its `attempts` says how many
    ///   were made), or the credentials provider's error.
    public func send(_ request: AWSRESTRequest) async throws -> HTTPResponse {
        var download = DownloadContinuation(toFile: request.responseFile != nil)
        let response = try await retryPolicy.send(
            "\(request.method) \(request.path)", service: signingName, operation: request.operationName, with: http
        ) {
            try await signed(download.continuing(request))
        } parseError: { response in
            AWSXMLError.parse(status: response.status, body: Data(response.body))
        } transportFailed: { error in
            if request.method.uppercased() == "GET" { download.keep(error.partial) }
        }
        return download.finish(response)
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
            text +=
                "?"
                + query.map { pair in
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
        var signable = SignableRequest(
            method: request.method, path: fullPath(request.path), query: request.query, headers: [("Host", hostHeader)] + request.headers)
        let payload: SigV4Payload =
            switch request.body {
            case .empty: .bytes([])
            case .bytes(let bytes): .bytes(bytes)
            case .file, .fileRange: .unsigned
            }
        SigV4Signer(credentials: try await credentials.credentials(), region: region, service: signingName).sign(&signable, payload: payload)
        var http = HTTPRequest(
            method: request.method, url: try url(path: request.path, query: request.query),
            headers: signable.headers, body: request.body, timeout: attemptTimeout, responseFile: request.responseFile)
        http.connectTimeout = options.connectTimeout
        http.lowSpeedLimit = options.lowSpeedLimit
        http.responseFileOffset = request.responseFileOffset
        http.uploadProgress = request.uploadProgress
        http.downloadProgress = request.downloadProgress
        return http
    }
}

/// What the attempts of one `GET` have received so far, so that the next attempt asks only for
/// the rest of the same version of the object.
struct DownloadContinuation {
    let toFile: Bool
    /// The first answer's status and headers (what the caller gets back).
    private var status = 0
    private var headers: [(name: String, value: String)] = []
    /// The absolute position of the first byte the request asked for, and of its last (`nil`:
    /// to the end).
    private var first: Int64 = 0
    private var last: Int64?
    private var eTag: String?
    /// Body bytes kept: in `memory`, or at the start of the response file.
    private var kept: Int64 = 0
    private var memory: [UInt8] = []

    init(toFile: Bool) { self.toFile = toFile }

    /// An attempt broke off with `partial` received: keep it, or start over when it cannot be
    /// continued (no body, an error answer, a compressed body whose positions are not the
    /// object's, a range that cannot be read).
    mutating func keep(_ partial: HTTPPartialResponse?) {
        guard let partial, partial.bodyBytes > 0 else { return }
        let encoding = partial.header("Content-Encoding")?.lowercased()
        guard encoding == nil || encoding == "identity" || encoding == "" else { return startOver() }
        if kept > 0, partial.status == 206 {
            // A continuation broke off too: keep its part after the rest.
            kept += partial.bodyBytes
            memory += partial.body
            return
        }
        // A first answer (or a 200 from a server that ignored the range and sent it all again).
        switch partial.status {
        case 200:
            first = 0
            last = partial.header("Content-Length").flatMap { Int64($0) }.map { $0 - 1 }
        case 206:
            guard let range = Self.contentRange(partial.header("Content-Range")) else { return startOver() }
            (first, last) = range
        default:
            return startOver()
        }
        status = partial.status
        headers = partial.headers
        eTag = partial.header("ETag")
        kept = partial.bodyBytes
        memory = partial.body
    }

    private mutating func startOver() {
        kept = 0
        memory = []
    }

    /// `request`, asking for the bytes still missing when some were kept.
    func continuing(_ request: AWSRESTRequest) -> AWSRESTRequest {
        guard kept > 0 else { return request }
        var next = request
        next.headers.removeAll { ["range", "if-match"].contains($0.name.lowercased()) }
        next.headers.append(("Range", "bytes=\(first + kept)-\(last.map(String.init) ?? "")"))
        if let eTag { next.headers.append(("If-Match", eTag)) }
        if toFile { next.responseFileOffset = kept }
        return next
    }

    /// The answer the caller gets: the first answer's status and headers with the whole body.
    func finish(_ response: HTTPResponse) -> HTTPResponse {
        guard kept > 0, response.status == 206 else { return response }
        return HTTPResponse(status: status, headers: headers, body: toFile ? [] : memory + response.body)
    }

    /// (first, last) of `bytes first-last/size`.
    static func contentRange(_ header: String?) -> (Int64, Int64)? {
        guard let header, header.hasPrefix("bytes ") else { return nil }
        let span = header.dropFirst("bytes ".count).split(separator: "/").first ?? ""
        let ends = span.split(separator: "-")
        guard ends.count == 2, let first = Int64(ends[0]), let last = Int64(ends[1]), first <= last else { return nil }
        return (first, last)
    }
}
