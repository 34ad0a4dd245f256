/// Errors of the model layer (amplify-swift's `DataStoreError`): text that is not a model, a
/// date or an enum case, a model name nobody registered, a query that cannot be one.
///
/// The cases this package has no use for yet (DataStore's sync, conflicts and database) are not
/// declared.
public enum DataStoreError: AmplifyError, Sendable {
    /// The configuration is wrong.
    case configuration(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// A condition or predicate cannot be used: it names a field the model lacks, or an operator
    /// the field's type does not take.
    case invalidCondition(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// Data did not decode into the model: a field, value and model are named.
    case decodingError(ErrorDescription, RecoverySuggestion)
    /// Something inside the model layer failed.
    case internalOperation(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// No model of that name is registered.
    case invalidModelName(String)
    /// The operation cannot be run.
    case invalidOperation(causedBy: (any Error)? = nil)
    /// A query meant to find at most one model found `count`.
    case nonUniqueResult(model: String, count: Int)
    /// Synchronising failed.
    case sync(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// Something nobody expected.
    case unknown(ErrorDescription, RecoverySuggestion, (any Error)? = nil)

    /// What went wrong.
    public var errorDescription: ErrorDescription {
        switch self {
        case .configuration(let description, _, _), .invalidCondition(let description, _, _), .decodingError(let description, _),
            .internalOperation(let description, _, _), .sync(let description, _, _):
            description
        case .invalidModelName(let name):
            "No model named \(name) is registered."
        case .invalidOperation(let cause):
            "The operation is not valid\(cause.map { ": \($0)" } ?? ".")"
        case .nonUniqueResult(let model, let count):
            "The query for one \(model) found \(count)."
        case .unknown(let description, _, _):
            "Unexpected error occurred with message: \(description)"
        }
    }

    /// How to fix it.
    public var recoverySuggestion: RecoverySuggestion {
        switch self {
        case .configuration(_, let suggestion, _), .invalidCondition(_, let suggestion, _), .decodingError(_, let suggestion),
            .internalOperation(_, let suggestion, _), .sync(_, let suggestion, _):
            suggestion
        case .invalidModelName:
            "Register the model (ModelRegistry.register(modelType:), or AWSAPIPlugin(modelRegistration: AmplifyModels())) before using it, and check its spelling."
        case .invalidOperation:
            "Check the operation's arguments."
        case .nonUniqueResult:
            "Query with a predicate on the model's identifier, or list instead."
        case .unknown(_, let suggestion, _):
            suggestion.isEmpty ? AmplifyErrorMessages.shouldNotHappen : suggestion
        }
    }

    /// The error underneath.
    public var underlyingError: (any Error)? {
        switch self {
        case .configuration(_, _, let error), .invalidCondition(_, _, let error), .internalOperation(_, _, let error), .sync(_, _, let error),
            .unknown(_, _, let error), .invalidOperation(let error):
            error
        case .decodingError, .invalidModelName, .nonUniqueResult:
            nil
        }
    }

    /// The error for text that is not an ISO 8601 date, time or date and time.
    public static func invalidDateFormat(_ value: String) -> DataStoreError {
        invalidDateFormat(value, example: "2024-05-01T13:45:30.250Z")
    }

    static func invalidDateFormat(_ value: String, example: String) -> DataStoreError {
        .decodingError(
            "\"\(value)\" is not an ISO 8601 date or time in AppSync's formats.",
            "Write it as \(example).")
    }
}

/// Errors of the core's lazy lists and references (amplify-swift's `CoreError`).
public enum CoreError: AmplifyError, Sendable {
    /// A list could not load or page.
    case listOperation(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// A value the caller gave or required is not there.
    case clientValidation(ErrorDescription, RecoverySuggestion, (any Error)? = nil)

    /// What went wrong.
    public var errorDescription: ErrorDescription {
        switch self {
        case .listOperation(let description, _, _), .clientValidation(let description, _, _): description
        }
    }

    /// How to fix it.
    public var recoverySuggestion: RecoverySuggestion {
        switch self {
        case .listOperation(_, let suggestion, _), .clientValidation(_, let suggestion, _): suggestion
        }
    }

    /// The error underneath.
    public var underlyingError: (any Error)? {
        switch self {
        case .listOperation(_, _, let error), .clientValidation(_, _, let error): error
        }
    }
}
