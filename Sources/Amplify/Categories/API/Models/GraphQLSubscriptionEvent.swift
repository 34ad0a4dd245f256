/// One event of a subscription's sequence: a change of its connection's state, or data.
public enum GraphQLSubscriptionEvent<T: Decodable & Sendable>: Sendable {
    /// The subscription's connection changed state.
    case connection(SubscriptionConnectionState)
    /// The server published data (or errors) for the subscription.
    case data(GraphQLResponse<T>)
}
