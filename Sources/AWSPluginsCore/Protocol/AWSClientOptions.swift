import Amplify

/// How slow a transfer may get before it is given up: less than ``bytesPerSecond`` on average
/// over ``seconds`` ends the attempt with a timeout (curl's `CURLOPT_LOW_SPEED_LIMIT` and
/// `CURLOPT_LOW_SPEED_TIME`). Bytes in either direction count, so it catches a server that stops
/// sending a response, one that stops reading a body, and one that never answers at all.
public struct HTTPLowSpeedLimit: Sendable, Equatable {
    /// The slowest average accepted, in bytes per second (at least 1).
    public var bytesPerSecond: Int
    /// Over how many whole seconds the average is taken (at least 1).
    public var seconds: Int

    /// A limit of `bytesPerSecond` averaged over `seconds`.
    /// - Parameters:
    ///   - bytesPerSecond: the slowest average accepted (values below 1 count as 1).
    ///   - seconds: the window in whole seconds (values below 1 count as 1).
    public init(bytesPerSecond: Int, seconds: Int) {
        self.bytesPerSecond = max(1, bytesPerSecond)
        self.seconds = max(1, seconds)
    }
}

/// The time limits and retries of every call an AWS client makes (``AWSJSONClient``,
/// ``AWSRESTClient``): a connect timeout, a low-speed limit and a deadline per attempt, and the
/// ``RetryPolicy`` that retries an attempt that ran out of any of them.
///
/// The Cognito, S3 and Kinesis plugins read it from an optional `http` object in their block
/// (see ``init(json:at:defaults:)``):
///
/// ```json
/// "http": {"connectTimeoutSeconds": 10, "lowSpeedLimitBytesPerSecond": 1, "lowSpeedTimeSeconds": 30,
///          "attemptTimeoutSeconds": 30, "maxAttempts": 3}
/// ```
public struct AWSClientOptions: Sendable, Equatable {
    /// The accepted range of each setting of the `http` object.
    public enum Limits {
        /// `connectTimeoutSeconds`: 1 ms to 10 minutes.
        public static let connectTimeoutSeconds: ClosedRange<Double> = 0.001...600
        /// `attemptTimeoutSeconds`: 0 (no deadline) or 1 ms to a day.
        public static let attemptTimeoutSeconds: ClosedRange<Double> = 0...86_400
        /// `lowSpeedLimitBytesPerSecond`: 0 (no low-speed limit) to 1 GiB a second.
        public static let lowSpeedLimitBytesPerSecond: ClosedRange<Int> = 0...(1 << 30)
        /// `lowSpeedTimeSeconds`: 1 second to an hour.
        public static let lowSpeedTimeSeconds: ClosedRange<Int> = 1...3_600
        /// `maxAttempts`: 1 (never retried) to 20.
        public static let maxAttempts: ClosedRange<Int> = 1...20
    }

    /// How long making the connection (TCP and TLS) may take.
    public var connectTimeout: Duration
    /// The slowest transfer accepted (`nil`: no limit).
    public var lowSpeedLimit: HTTPLowSpeedLimit?
    /// How long one attempt may take from start to end (`nil`: no deadline).
    public var attemptTimeout: Duration?
    /// When a failed attempt is tried again; an attempt that ran out of time counts as a
    /// connection failure, which the policy retries.
    public var retryPolicy: RetryPolicy

    /// Options in code.
    /// - Parameters:
    ///   - connectTimeout: how long making the connection may take.
    ///   - lowSpeedLimit: the slowest transfer accepted (`nil`: no limit).
    ///   - attemptTimeout: how long one attempt may take (`nil`: no deadline).
    ///   - retryPolicy: when a failed attempt is tried again.
    public init(
        connectTimeout: Duration = .seconds(10), lowSpeedLimit: HTTPLowSpeedLimit? = HTTPLowSpeedLimit(bytesPerSecond: 1, seconds: 30),
        attemptTimeout: Duration? = .seconds(30), retryPolicy: RetryPolicy = RetryPolicy()
    ) {
        self.connectTimeout = connectTimeout
        self.lowSpeedLimit = lowSpeedLimit
        self.attemptTimeout = attemptTimeout
        self.retryPolicy = retryPolicy
    }

    /// The JSON services' defaults (Cognito, Kinesis, Firehose): connect within 10 s, at least
    /// 1 byte a second over 30 s, each attempt done within 30 s, 3 attempts.
    public static let jsonDefaults = AWSClientOptions()

    /// S3's defaults: as ``jsonDefaults`` but each attempt may take 15 minutes (a body of
    /// gigabytes), and a download cut short continues where it stopped.
    public static let s3Defaults = AWSClientOptions(attemptTimeout: .seconds(900))

    /// Reads the `http` object of a plugin's block; what it leaves out comes from `defaults`.
    ///
    /// Keys: `connectTimeoutSeconds`, `attemptTimeoutSeconds` (0: no deadline),
    /// `lowSpeedLimitBytesPerSecond` (0: no low-speed limit), `lowSpeedTimeSeconds` and
    /// `maxAttempts`, each within ``Limits``.
    /// - Parameters:
    ///   - json: the plugin's block (`nil`: all defaults).
    ///   - keyPath: where the object sits in the block (`http`).
    ///   - defaults: the values of keys left out.
    /// - Throws: `ConfigurationValueError` naming the key (`http.maxAttempts`) and its range.
    public init(json: JSONValue?, at keyPath: String = "http", defaults: AWSClientOptions) throws(ConfigurationValueError) {
        self = defaults
        guard let json, let block = json.value(at: keyPath), !block.isNull else { return }
        guard block.asObject != nil else {
            throw ConfigurationValueError(keyPath: keyPath, expected: "an object such as {\"attemptTimeoutSeconds\": 30}", found: block)
        }
        if let seconds = try json.boundedNumber("\(keyPath).connectTimeoutSeconds", in: Limits.connectTimeoutSeconds, unit: "seconds") {
            connectTimeout = .milliseconds(max(1, Int((seconds * 1000).rounded())))
        }
        if let seconds = try json.boundedNumber("\(keyPath).attemptTimeoutSeconds", in: Limits.attemptTimeoutSeconds, unit: "seconds") {
            attemptTimeout = seconds == 0 ? nil : .milliseconds(max(1, Int((seconds * 1000).rounded())))
        }
        let bytes = try json.boundedInt("\(keyPath).lowSpeedLimitBytesPerSecond", in: Limits.lowSpeedLimitBytesPerSecond, unit: "bytes a second")
        let window = try json.boundedInt("\(keyPath).lowSpeedTimeSeconds", in: Limits.lowSpeedTimeSeconds, unit: "seconds")
        if bytes == 0 {
            lowSpeedLimit = nil
        } else if bytes != nil || window != nil {
            let current = lowSpeedLimit ?? HTTPLowSpeedLimit(bytesPerSecond: 1, seconds: 30)
            lowSpeedLimit = HTTPLowSpeedLimit(bytesPerSecond: bytes ?? current.bytesPerSecond, seconds: window ?? current.seconds)
        }
        if let attempts = try json.boundedInt("\(keyPath).maxAttempts", in: Limits.maxAttempts) {
            retryPolicy.maxAttempts = attempts
        }
    }
}
