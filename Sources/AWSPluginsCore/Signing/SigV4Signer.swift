import AmplifyCrypto
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What the signature says about the body.
public enum SigV4Payload: Sendable, Equatable {
    /// The body's bytes: their SHA-256 is signed.
    case bytes([UInt8])
    /// The hex SHA-256 of a body hashed elsewhere (a streamed file).
    case precomputedSHA256(String)
    /// `UNSIGNED-PAYLOAD` (S3 over TLS, presigned URLs).
    case unsigned

    var hash: String {
        switch self {
        case .bytes(let bytes): Digest.hex(Digest.sha256(bytes))
        case .precomputedSHA256(let hash): hash
        case .unsigned: "UNSIGNED-PAYLOAD"
        }
    }
}

/// AWS Signature Version 4 (header and presigned-query forms), on OpenSSL's SHA-256 and HMAC.
///
/// Standard services get a normalized path encoded once more than it is on the wire; S3 (see
/// ``isS3``) keeps the path exactly as it is on the wire and also signs `x-amz-content-sha256`.
public struct SigV4Signer: Sendable {
    /// The keys to sign with.
    public let credentials: AWSCredentials
    /// The region, e.g. `us-east-1`.
    public let region: String
    /// The signing name of the service, e.g. `s3`, `cognito-idp`, `kinesis`.
    public let service: String
    /// Whether `X-Amz-Security-Token` is part of the signed headers (true for nearly every
    /// service) or added after signing.
    public var signsSecurityToken = true

    /// A signer for `service` in `region`.
    public init(credentials: AWSCredentials, region: String, service: String) {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// Whether the S3 rules apply (no path normalization, no second encoding).
    public var isS3: Bool { service == "s3" }

    /// Adds `X-Amz-Date`, the session token (when there is one), `x-amz-content-sha256` (S3)
    /// and `Authorization` to `request`.
    public func sign(_ request: inout SignableRequest, payload: SigV4Payload, date: Date = Date()) {
        let timestamp = Self.timestamp(date)
        request.setHeader("X-Amz-Date", timestamp)
        if isS3 { request.setHeader("x-amz-content-sha256", payload.hash) }
        if let token = credentials.sessionToken, signsSecurityToken { request.setHeader("X-Amz-Security-Token", token) }
        let (canonical, signedHeaders) = canonicalRequest(request, payloadHash: payload.hash)
        let signature = signature(canonicalRequest: canonical, timestamp: timestamp)
        if let token = credentials.sessionToken, !signsSecurityToken { request.setHeader("X-Amz-Security-Token", token) }
        request.setHeader(
            "Authorization",
            "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyId)/\(scope(timestamp)), SignedHeaders=\(signedHeaders), Signature=\(signature)")
    }

    /// The query parameters that make `request` a presigned URL valid for `expires` seconds
    /// (1 to 604 800). The request's existing query parameters are kept and signed.
    public func presign(_ request: SignableRequest, expires: Int, payload: SigV4Payload = .unsigned, date: Date = Date()) -> [(
        name: String, value: String
    )] {
        let timestamp = Self.timestamp(date)
        var presigned = request
        let signedHeaderNames = Self.canonicalHeaders(request.headers).map(\.name).joined(separator: ";")
        presigned.query += [
            ("X-Amz-Algorithm", "AWS4-HMAC-SHA256"),
            ("X-Amz-Credential", "\(credentials.accessKeyId)/\(scope(timestamp))"),
            ("X-Amz-Date", timestamp),
            ("X-Amz-Expires", String(min(max(expires, 1), 604_800))),
            ("X-Amz-SignedHeaders", signedHeaderNames),
        ]
        if let token = credentials.sessionToken { presigned.query.append(("X-Amz-Security-Token", token)) }
        let (canonical, _) = canonicalRequest(presigned, payloadHash: payload.hash)
        return presigned.query + [("X-Amz-Signature", signature(canonicalRequest: canonical, timestamp: timestamp))]
    }

    /// The canonical request and its signed-header list.
    public func canonicalRequest(_ request: SignableRequest, payloadHash: String) -> (String, String) {
        let headers = Self.canonicalHeaders(request.headers)
        let signedHeaders = headers.map(\.name).joined(separator: ";")
        let lines = [
            request.method.uppercased(),
            canonicalPath(request.path),
            Self.canonicalQuery(request.query),
            headers.map { "\($0.name):\($0.value)\n" }.joined(),
            signedHeaders,
            payloadHash,
        ]
        return (lines.joined(separator: "\n"), signedHeaders)
    }

    /// The string to sign for a canonical request made at `timestamp` (`yyyyMMdd'T'HHmmss'Z'`).
    public func stringToSign(canonicalRequest: String, timestamp: String) -> String {
        ["AWS4-HMAC-SHA256", timestamp, scope(timestamp), Digest.hex(Digest.sha256(Array(canonicalRequest.utf8)))]
            .joined(separator: "\n")
    }

    /// The hex signature of a canonical request made at `timestamp`.
    public func signature(canonicalRequest: String, timestamp: String) -> String {
        let day = String(timestamp.prefix(8))
        var key = Digest.hmacSHA256(key: Array("AWS4\(credentials.secretAccessKey)".utf8), Array(day.utf8))
        for part in [region, service, "aws4_request"] { key = Digest.hmacSHA256(key: key, Array(part.utf8)) }
        return Digest.hex(Digest.hmacSHA256(key: key, Array(stringToSign(canonicalRequest: canonicalRequest, timestamp: timestamp).utf8)))
    }

    private func scope(_ timestamp: String) -> String {
        "\(timestamp.prefix(8))/\(region)/\(service)/aws4_request"
    }

    private func canonicalPath(_ path: String) -> String {
        let raw = path.isEmpty ? "/" : path
        if isS3 { return raw }
        return URIEncoding.encode(Self.normalize(raw), keepingSlashes: true)
    }

    /// Removes `.` and `..` segments and empty segments (RFC 3986 §5.2.4), keeping a trailing `/`.
    static func normalize(_ path: String) -> String {
        var segments: [Substring] = []
        for segment in path.split(separator: "/", omittingEmptySubsequences: true) {
            if segment == "." { continue }
            if segment == ".." {
                _ = segments.popLast()
                continue
            }
            segments.append(segment)
        }
        let trailing = path.hasSuffix("/") && !segments.isEmpty ? "/" : ""
        return "/" + segments.joined(separator: "/") + trailing
    }

    static func canonicalQuery(_ query: [(name: String, value: String)]) -> String {
        let encoded: [(name: String, value: String)] = query.map { (URIEncoding.encode($0.name), URIEncoding.encode($0.value)) }
        let sorted = encoded.sorted { left, right in left.name == right.name ? left.value < right.value : left.name < right.name }
        return sorted.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
    }

    /// Lower-case names, sorted; values trimmed, inner runs of spaces collapsed, repeated
    /// headers joined with commas in their order.
    static func canonicalHeaders(_ headers: [(name: String, value: String)]) -> [(name: String, value: String)] {
        var merged: [String: [String]] = [:]
        for (name, value) in headers where name.lowercased() != "authorization" {
            let collapsed = value.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            merged[name.lowercased(), default: []].append(collapsed)
        }
        return merged.keys.sorted().map { ($0, merged[$0, default: []].joined(separator: ",")) }
    }

    /// `yyyyMMdd'T'HHmmss'Z'` in UTC.
    public static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return pad(parts.tm_year + 1900, 4) + pad(parts.tm_mon + 1, 2) + pad(parts.tm_mday, 2) + "T"
            + pad(parts.tm_hour, 2) + pad(parts.tm_min, 2) + pad(parts.tm_sec, 2) + "Z"
    }
}
