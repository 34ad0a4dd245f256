/// When and after how long a failed AWS request is tried again: throttling, 5xx answers and
/// connection failures are retried with capped exponential backoff and full jitter; other 4xx
/// answers never are.
public struct RetryPolicy: Sendable, Equatable {
    /// Tries in all, the first included.
    public var maxAttempts: Int
    /// The backoff before the first retry (before jitter).
    public var baseDelay: Duration
    /// The longest backoff.
    public var maxDelay: Duration

    /// The SDKs' standard mode: 3 attempts, 100 ms base, 20 s cap.
    public init(maxAttempts: Int = 3, baseDelay: Duration = .milliseconds(100), maxDelay: Duration = .seconds(20)) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// Error codes that mean "slow down".
    public static let throttlingCodes: Set<String> = [
        "Throttling", "ThrottlingException", "ThrottledException", "RequestThrottledException", "TooManyRequestsException",
        "ProvisionedThroughputExceededException", "TransactionInProgressException", "RequestLimitExceeded",
        "BandwidthLimitExceeded", "LimitExceededException", "RequestThrottled", "SlowDown", "PriorRequestNotComplete",
        "EC2ThrottledException",
    ]

    /// Why an attempt failed, as far as retrying cares.
    public enum Failure: Sendable, Equatable {
        /// The service answered with `status` and, if it said, an error `code`.
        case response(status: Int, code: String?)
        /// No answer: the connection failed or timed out.
        case connection
    }

    /// Whether `failure` is worth another attempt.
    public func isRetryable(_ failure: Failure) -> Bool {
        switch failure {
        case .connection: return true
        case .response(let status, let code):
            if let code, Self.throttlingCodes.contains(code) { return true }
            return status == 429 || (500...599).contains(status) && status != 501
        }
    }

    /// The backoff before retry number `retry` (1 for the first retry): a random duration in
    /// `0 ... min(maxDelay, baseDelay × 2^(retry-1))`. `random` returns a number in 0 ..< 1.
    public func delay(beforeRetry retry: Int, random: () -> Double = { Double.random(in: 0..<1) }) -> Duration {
        let exponent = min(max(retry - 1, 0), 30)
        let ceiling = min(maxDelay, baseDelay * (1 << exponent))
        return ceiling * random()
    }
}
