/// The raw text of a GraphQL response, kept when it could not be turned into the response type.
public typealias RawGraphQLResponse = String

/// What a query or mutation returns: the decoded data, or why there is none (amplify-swift's
/// shape): `.failure(.error(errors))` when the server sent only errors,
/// `.failure(.partial(data, errors))` when it sent both, `.failure(.transformationError(raw, error))`
/// when the data did not decode to `R`.
public typealias GraphQLResponse<R: Decodable & Sendable> = Result<R, GraphQLResponseError<R>>

/// Why a GraphQL response holds no (complete) data.
public enum GraphQLResponseError<R: Decodable & Sendable>: AmplifyError {
    /// The server sent errors and no data.
    case error([GraphQLError])
    /// The server sent data with errors: some fields failed and are `null`.
    case partial(R, [GraphQLError])
    /// The data could not be decoded to `R` (or found at the decode path); the raw response is kept.
    case transformationError(RawGraphQLResponse, APIError)
    /// Something else.
    case unknown(ErrorDescription, RecoverySuggestion, (any Error)? = nil)

    /// What went wrong.
    public var errorDescription: ErrorDescription {
        switch self {
        case .error(let errors):
            "The GraphQL response has \(errors.count == 1 ? "an error" : "\(errors.count) errors"): \(Self.summary(errors))"
        case .partial(_, let errors):
            "The GraphQL response has partial data and \(errors.count == 1 ? "an error" : "\(errors.count) errors"): \(Self.summary(errors))"
        case .transformationError(_, let error):
            "The GraphQL response could not be turned into \(R.self): \(error.errorDescription)"
        case .unknown(let description, _, _):
            description
        }
    }

    /// How to fix it.
    public var recoverySuggestion: RecoverySuggestion {
        switch self {
        case .error, .partial:
            "Read the errors' messages, paths and `errorType` extensions; the fields they name are null in the data."
        case .transformationError(_, let error):
            error.recoverySuggestion
        case .unknown(_, let suggestion, _):
            suggestion
        }
    }

    /// The error underneath.
    public var underlyingError: (any Error)? {
        switch self {
        case .error(let errors), .partial(_, let errors): errors.first
        case .transformationError(_, let error): error
        case .unknown(_, _, let error): error
        }
    }

    private static func summary(_ errors: [GraphQLError]) -> String {
        errors.prefix(3).map { error in
            let type = error.errorType.map { "\($0): " } ?? ""
            let path = error.path.map { " (at \($0.map { $0.stringValue ?? $0.intValue.map(String.init) ?? "?" }.joined(separator: ".")))" } ?? ""
            return type + error.message + path
        }.joined(separator: "; ") + (errors.count > 3 ? "; …" : "")
    }
}
