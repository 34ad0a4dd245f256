import Amplify
import Foundation

/// Calls an AWS JSON 1.1 service (Cognito Identity Provider, Cognito Identity, Kinesis,
/// Firehose): `POST /` with `X-Amz-Target`, signed with SigV4 unless the operation is public,
/// retried per ``RetryPolicy`` (each retry logged at debug level, category "AWS"), error answers
/// mapped to ``AWSPluginsError``.
public struct AWSJSONClient: Sendable {
    /// The HTTP client (and so the loop) requests go through.
    public let http: HTTPClient
    /// The service's endpoint.
    public let endpoint: URL
    /// The signing region.
    public let region: String
    /// The signing name (`cognito-idp`, `cognito-identity`, `kinesis`, `firehose`).
    public let signingName: String
    /// Where signed calls get their keys.
    public let credentials: (any AWSCredentialsProvider)?
    /// Time limits and retries of every call.
    public let options: AWSClientOptions
    /// When to retry (``options``' policy).
    public var retryPolicy: RetryPolicy { options.retryPolicy }
    /// How long one attempt may take (``options``' deadline; `nil`: no limit).
    public var attemptTimeout: Duration? { options.attemptTimeout }

    /// A client for one service.
    /// - Parameters:
    ///   - http: the HTTP client requests go through.
    ///   - endpoint: the service's endpoint.
    ///   - region: the signing region.
    ///   - signingName: the signing name.
    ///   - credentials: where signed calls get their keys.
    ///   - options: time limits and retries (``AWSClientOptions/jsonDefaults`` by default).
    public init(
        http: HTTPClient, endpoint: URL, region: String, signingName: String,
        credentials: (any AWSCredentialsProvider)? = nil, options: AWSClientOptions = .jsonDefaults
    ) {
        self.http = http
        self.endpoint = endpoint
        self.region = region
        self.signingName = signingName
        self.credentials = credentials
        self.options = options
    }

    /// A client for one service with ``AWSClientOptions/jsonDefaults``' connect timeout and
    /// low-speed limit, `retryPolicy` and `attemptTimeout`.
    /// - Parameters:
    ///   - http: the HTTP client requests go through.
    ///   - endpoint: the service's endpoint.
    ///   - region: the signing region.
    ///   - signingName: the signing name.
    ///   - credentials: where signed calls get their keys.
    ///   - retryPolicy: when to retry.
    ///   - attemptTimeout: how long one attempt may take.
    public init(
        http: HTTPClient, endpoint: URL, region: String, signingName: String,
        credentials: (any AWSCredentialsProvider)? = nil, retryPolicy: RetryPolicy, attemptTimeout: Duration = .seconds(30)
    ) {
        var options = AWSClientOptions.jsonDefaults
        options.retryPolicy = retryPolicy
        options.attemptTimeout = attemptTimeout
        self.init(http: http, endpoint: endpoint, region: region, signingName: signingName, credentials: credentials, options: options)
    }

    /// Calls `target` (`AWSCognitoIdentityProviderService.InitiateAuth`) with `body`.
    ///
    /// - Parameters:
    ///   - target: the `X-Amz-Target` operation.
    ///   - body: the request's JSON.
    ///   - signed: whether to sign (public Cognito operations are not signed).
    /// - Returns: the answer's JSON (`{}` for an empty answer).
    /// - Throws: ``AWSPluginsError`` for the service's error answer (after retries, for retryable
    ///   ones), ``HTTPClientError`` when no answer came after the retries, or the credentials
    ///   provider's error.
    public func call(_ target: String, _ body: JSONValue, signed: Bool = true) async throws -> JSONValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let payload = Array(try encoder.encode(body))
        let operation = target.split(separator: ".").last.map(String.init) ?? target
        let response = try await retryPolicy.send(target, service: signingName, operation: operation, with: http) {
            try await signedRequest(target: target, payload: payload, signed: signed)
        } parseError: { response in
            AWSJSONError.parse(status: response.status, body: Data(response.body), errorTypeHeader: response.header("x-amzn-ErrorType"))
        }
        guard !response.body.isEmpty else { return [:] }
        return try JSONValue(parsing: response.body)
    }

    private func signedRequest(target: String, payload: [UInt8], signed: Bool) async throws -> HTTPRequest {
        let host = endpoint.port.map { "\(endpoint.host ?? ""):\($0)" } ?? (endpoint.host ?? "")
        var signable = SignableRequest(
            method: "POST", path: endpoint.path.isEmpty ? "/" : endpoint.path,
            headers: [("Host", host), ("Content-Type", "application/x-amz-json-1.1"), ("X-Amz-Target", target)])
        if signed {
            guard let credentials else {
                throw AWSPluginsError(
                    code: "CredentialsNotFound", "\(target) must be signed, and no credentials provider was given.",
                    "Configure credentials for the plugin.")
            }
            SigV4Signer(credentials: try await credentials.credentials(), region: region, service: signingName)
                .sign(&signable, payload: .bytes(payload))
        }
        var request = HTTPRequest(method: "POST", url: endpoint, headers: signable.headers, body: .bytes(payload), timeout: attemptTimeout)
        request.connectTimeout = options.connectTimeout
        request.lowSpeedLimit = options.lowSpeedLimit
        return request
    }
}
