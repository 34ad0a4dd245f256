import AWSPluginsCore
import Amplify
import Foundation

/// One subscription as its connection sees it: its id, the `data` string of its `start`, and
/// where its connection states, data and end go (its sequence and the Hub). Made off the loop;
/// its closures run on the loop thread.
final class RealtimeSubscription: Sendable {
    let id: String
    /// `{"query": …, "variables": …}` as the JSON text `start` carries.
    let data: String
    /// Authorization for its `start`, fetched when it was created (fresh again after a reconnect
    /// only through the connection's own authorization).
    let authorization: PreparedAuthorization
    let state: @Sendable (SubscriptionConnectionState) -> Void
    /// Gets a whole `data` message and the range of its payload when the router found it (the
    /// payload is decoded by the subscription, which knows its type).
    let deliver: @Sendable (_ message: [UInt8], _ payload: Range<Int>?) -> Void
    /// Sends the events `deliver` decoded since the last flush to the sequence, together (the
    /// connection calls it at the end of the loop turn that read them: one wake-up of the
    /// reader per burst, not per event). `state`, `fail` and `complete` flush first.
    let flush: @Sendable () -> Void
    let fail: @Sendable (APIError) -> Void
    let complete: @Sendable () -> Void

    init(
        id: String, data: String, authorization: PreparedAuthorization, state: @escaping @Sendable (SubscriptionConnectionState) -> Void,
        deliver: @escaping @Sendable ([UInt8], Range<Int>?) -> Void, flush: @escaping @Sendable () -> Void,
        fail: @escaping @Sendable (APIError) -> Void, complete: @escaping @Sendable () -> Void
    ) {
        self.id = id
        self.data = data
        self.authorization = authorization
        self.state = state
        self.deliver = deliver
        self.flush = flush
        self.fail = fail
        self.complete = complete
    }
}
