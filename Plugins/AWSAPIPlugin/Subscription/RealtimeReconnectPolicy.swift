/// How a real-time connection reconnects after its WebSocket drops (or `ka` stops): capped
/// exponential backoff with full jitter, fresh credentials for each attempt, every live
/// subscription started again once it is back.
public struct RealtimeReconnectPolicy: Sendable, Equatable {
    /// How many attempts in a row may fail before the subscriptions fail (`nil`: no limit).
    public var maximumAttempts: Int?
    /// The delay before the first retry (doubled for each further one).
    public var baseDelay: Duration
    /// The longest delay.
    public var maximumDelay: Duration

    /// A policy (8 attempts, from 100 ms up to 5 s).
    /// - Parameters:
    ///   - maximumAttempts: how many attempts in a row may fail (`nil`: no limit).
    ///   - baseDelay: the delay before the first retry.
    ///   - maximumDelay: the longest delay.
    public init(maximumAttempts: Int? = 8, baseDelay: Duration = .milliseconds(100), maximumDelay: Duration = .seconds(5)) {
        self.maximumAttempts = maximumAttempts
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
    }

    /// The delay before attempt `attempt` (1 for the first retry): a random duration up to
    /// `baseDelay · 2^(attempt-1)`, capped at `maximumDelay`.
    func delay(beforeAttempt attempt: Int, random: Double = Double.random(in: 0...1)) -> Duration {
        let exponent = min(max(attempt - 1, 0), 30)
        let ceiling = min(baseDelay * (1 << exponent), maximumDelay)
        return ceiling * random
    }
}
