/// Where an analytics plugin delivers batches from the durable queue (a JSON-lines file,
/// Kinesis, Firehose).
public protocol AnalyticsEventSender: Sendable {
    /// Delivers `batch` (in recording order) and says, for each record in the same order, whether
    /// it was accepted, refused, or not sent. Called by one flush at a time.
    func send(_ batch: [QueuedRecord]) async -> [RecordOutcome]
}

/// What one flush did.
public struct FlushSummary: Sendable, Equatable, Codable {
    /// Records delivered and deleted from the queue.
    public var sent = 0
    /// Records the target refused this time (tried again later).
    public var refused = 0
    /// Records set aside by this flush after their last refusal.
    public var setAside = 0
    /// Why the flush stopped early, when the target could not be reached.
    public var notSentReason: String?
    /// Records still waiting after the flush.
    public var waiting = 0
    /// Records set aside in all.
    public var setAsideTotal = 0

    /// An empty summary.
    public init() {}
}
