import Amplify

extension RetryPolicy {
    /// Sends the request `makeRequest` builds (afresh for every attempt, so each is signed with
    /// a current date) until a 2xx answer, a failure this policy does not retry, or the last
    /// attempt. Each retry is logged at debug level in category "AWS". An attempt that produced
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
        _ label: String, with http: HTTPClient, _ makeRequest: () async throws -> HTTPRequest,
        parseError: (HTTPResponse) -> AWSPluginsError, transportFailed: (HTTPClientError) -> Void = { _ in }
    ) async throws -> HTTPResponse {
        var attempt = 1
        while true {
            let request = try await makeRequest()
            let failure: Failure
            let error: any Error
            do {
                let response = try await http.send(request)
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
            Amplify.Logging.logger(forCategory: "AWS").debug("\(label) attempt \(attempt) failed (\(error)); retrying in \(delay)")
            try await Task.sleep(for: delay)
            attempt += 1
        }
    }
}
