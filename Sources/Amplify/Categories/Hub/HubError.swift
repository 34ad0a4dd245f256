/// Errors from the Hub category: adding and finding Hub plugins.
public enum HubError: AmplifyError {
    /// A Hub plugin is missing, has no key, or the call cannot tell which plugin to use.
    case configuration(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// Something unexpected.
    case unknownError(ErrorDescription, RecoverySuggestion, (any Error)? = nil)

    /// What went wrong.
    public var errorDescription: ErrorDescription {
        switch self {
        case .configuration(let d, _, _), .unknownError(let d, _, _): d
        }
    }

    /// How to fix it.
    public var recoverySuggestion: RecoverySuggestion {
        switch self {
        case .configuration(_, let r, _), .unknownError(_, let r, _): r
        }
    }

    /// The error underneath.
    public var underlyingError: (any Error)? {
        switch self {
        case .configuration(_, _, let e), .unknownError(_, _, let e): e
        }
    }
}

extension HubError {
    /// amplify-swift's wrapping initialiser: a `HubError` stays as it is; anything else becomes
    /// ``unknownError(_:_:_:)`` with `errorDescription` (and `recoverySuggestion` where the case has one).
    public init(
        errorDescription: ErrorDescription = "An unknown error occurred", recoverySuggestion: RecoverySuggestion = "(Ignored)",
        error: any Error
    ) {
        if let error = error as? HubError {
            self = error
        } else {
            self = .unknownError(errorDescription, recoverySuggestion, error)
        }
    }
}
