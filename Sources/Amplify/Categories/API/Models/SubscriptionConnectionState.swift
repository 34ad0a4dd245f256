/// The state of a subscription's connection, as its sequence reports it: `connecting` before
/// the server has accepted it (and again while reconnecting after a drop), `connected` once the
/// server has acknowledged it, `disconnected` when it has ended.
public enum SubscriptionConnectionState: String, Sendable, Equatable {
    /// Connecting, or reconnecting after a drop.
    case connecting
    /// The server has acknowledged the subscription; data arrives.
    case connected
    /// The subscription has ended (stopped, completed, or failed for good).
    case disconnected
}
