/// The `context` of the API category's Hub events: which API and which operation.
public struct APIOperationContext: Sendable, Equatable {
    /// The API's name in the configuration.
    public let apiName: String
    /// What the operation was: `query`, `mutation`, `subscription`, or the HTTP method of a REST call.
    public let operation: String
    /// An id for the operation (a subscription's id on its connection), when it has one.
    public let operationId: String?

    /// A context.
    public init(apiName: String, operation: String, operationId: String? = nil) {
        self.apiName = apiName
        self.operation = operation
        self.operationId = operationId
    }
}
