/// An `AsyncSequence` of Hub payloads, fed by the same queue as closure listeners: it yields
/// exactly what a listener registered at the same moment would receive, in the same order.
///
/// **Buffering.** Payloads are buffered between the Hub (which never waits) and the consumer.
/// With the default ``BufferingPolicy/unbounded`` nothing is dropped and a slow consumer makes
/// the buffer grow. With ``BufferingPolicy/bufferingNewest(_:)`` or
/// ``BufferingPolicy/bufferingOldest(_:)`` memory is bounded and payloads beyond the limit are
/// dropped; each drop is counted in ``droppedCount`` and the first one is logged as a warning.
///
/// The sequence ends when the Hub is reset. Ending the iteration (or cancelling its task)
/// removes the underlying listener.
public struct HubEventStream: AsyncSequence, Sendable {
    /// What the stream yields.
    public typealias Element = HubPayload

    /// How many payloads the stream keeps for a consumer that has not caught up.
    public enum BufferingPolicy: Sendable, Equatable {
        /// Keep every payload (the default): nothing is lost; memory grows with the backlog.
        case unbounded
        /// Keep at most the newest `n` payloads; older ones are dropped.
        case bufferingNewest(Int)
        /// Keep at most the oldest `n` payloads; newer ones are dropped.
        case bufferingOldest(Int)

        var streamPolicy: AsyncStream<HubPayload>.Continuation.BufferingPolicy {
            switch self {
            case .unbounded: .unbounded
            case .bufferingNewest(let n): .bufferingNewest(Swift.max(0, n))
            case .bufferingOldest(let n): .bufferingOldest(Swift.max(0, n))
            }
        }
    }

    let stream: AsyncStream<HubPayload>
    let drops: DropCounter

    /// How many payloads the buffering policy has dropped so far.
    public var droppedCount: Int { drops.count }

    /// An iterator over the payloads.
    public func makeAsyncIterator() -> AsyncStream<HubPayload>.Iterator {
        stream.makeAsyncIterator()
    }
}
