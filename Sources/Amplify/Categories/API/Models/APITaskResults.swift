import Foundation

/// amplify-swift v2's name for what a GraphQL query or mutation returns
/// (`GraphQLTask<R>.Success`), so plugin and application code written with it compiles here.
/// There is no task object: the calls are `async` and return the response itself.
public enum GraphQLTask<R: Decodable & Sendable> {
    /// The response of a query or mutation.
    public typealias Success = GraphQLResponse<R>
}

/// amplify-swift v2's name for what a REST call returns (`RESTTask.Success`): the body.
public enum RESTTask {
    /// The response body.
    public typealias Success = Data
}
