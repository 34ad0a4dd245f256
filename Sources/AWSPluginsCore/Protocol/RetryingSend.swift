import Amplify

extension RetryPolicy {
    /// Sends the request `makeRequest` builds (afresh for every attempt, so each is signed with
    /// a current date) until a 2xx answer, a failure this policy does not retry, or the last
    /// attempt. Each attempt is named `service` / `operation` in the HTTP metrics; each retry
    /// is counted (`amplify_http_retries_total`) and logged at debug level in category "AWS",
    /// and each answer at debug level with the service's request id. An attempt that produced
    /// no answer — the connection failed, broke mid-answer, or ran out of its connect timeout,
    /// low-speed limit or deadline — is a connection failure, which the policy retries; the
    /// ``HTTPClientError`` finally thrown says how many attempts were made.
    ///
    /// - Parameters:
    ///   - label: names the call in the log.
    ///   - http: the client that sends.
    ///   - makeRequest: builds each attempt's request.
    ///   - parseError: reads a non-2xx answer's error.
    ///   - transportFailed: told of each attempt that ended without an answer (a download
    ///     keeps what arrived before it broke off).
    /// - Returns: the 2xx answer.
    /// - Throws: `parseError`'s error for the last error answer, ``HTTPClientError`` when no
    ///   answer came, or what `makeRequest` throws.
    func send(
        _ label: String, service: String, operation: String, with http: HTTPClient, _ makeRequest: () async throws -> HTTPRequest,
        parseError: (HTTPResponse) -> AWSPluginsError, transportFailed: (HTTPClientError) -> Void = { _ in }
    ) async throws -> HTTPResponse {
        let log = Amplify.Logging.logger(forCategory: "AWS")
        var attempt = 1
        while true {
            var request = try await makeRequest()
            request.service = service
            request.operation = operation
            let failure: Failure
            let error: any Error
            do {
                let response = try await http.send(request)
                log.log(
                    level: .debug, "\(label) attempt \(attempt): \(response.status)",
                    metadata: Self.metadata(service, operation, requestID: Self.requestID(of: response)))
                if (200..<300).contains(response.status) { return response }
                let parsed = parseError(response)
                failure = .response(status: response.status, code: parsed.code)
                error = parsed
            } catch var transport as HTTPClientError where transport.kind == .connection || transport.kind == .timeout {
                transportFailed(transport)
                transport.attempts = attempt
                failure = .connection
                error = transport
            } catch var other as HTTPClientError {
                other.attempts = attempt
                throw other
            }
            guard attempt < maxAttempts, isRetryable(failure) else { throw error }
            let delay = delay(beforeRetry: attempt)
            http.metrics?.retry(service: service, operation: operation)
            log.log(
                level: .debug, "\(label) attempt \(attempt) failed (\(error)); retrying in \(delay)",
                metadata: Self.metadata(service, operation, requestID: nil))
            try await Task.sleep(for: delay)
            attempt += 1
        }
    }

    /// The service's id for the request: `x-amzn-RequestId` (JSON services) or
    /// `x-amz-request-id` (S3).
    static func requestID(of response: HTTPResponse) -> String? {
        response.header("x-amzn-RequestId") ?? response.header("x-amz-request-id")
    }

    private static func metadata(_ service: String, _ operation: String, requestID: String?) -> [String: String] {
        var metadata = [LogMetadataKey.service: service, LogMetadataKey.operation: operation]
        if let requestID { metadata[LogMetadataKey.requestID] = requestID }
        return metadata
    }
}
