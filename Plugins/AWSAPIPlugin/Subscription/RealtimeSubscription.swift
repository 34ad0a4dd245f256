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
    /// Gets a whole `data` message (its payload is decoded by the subscription, which knows its type).
    let deliver: @Sendable (_ message: [UInt8]) -> Void
    let fail: @Sendable (APIError) -> Void
    let complete: @Sendable () -> Void

    init(
        id: String, data: String, authorization: PreparedAuthorization, state: @escaping @Sendable (SubscriptionConnectionState) -> Void,
        deliver: @escaping @Sendable ([UInt8]) -> Void, fail: @escaping @Sendable (APIError) -> Void, complete: @escaping @Sendable () -> Void
    ) {
        self.id = id
        self.data = data
        self.authorization = authorization
        self.state = state
        self.deliver = deliver
        self.fail = fail
        self.complete = complete
    }
}
