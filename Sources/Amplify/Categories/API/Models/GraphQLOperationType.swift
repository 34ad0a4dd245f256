/// The three kinds of GraphQL operation.
public enum GraphQLOperationType: String, Sendable, Equatable {
    /// A read.
    case query
    /// A write.
    case mutation
    /// A stream of events.
    case subscription
}
