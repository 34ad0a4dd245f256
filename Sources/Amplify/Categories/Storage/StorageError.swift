/// Errors from the Storage category.
public enum StorageError: AmplifyError {
    /// The caller may not access the object.
    case accessDenied(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// Credentials could not be had from the Auth category.
    case authError(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// The plugin or category is not configured, or configured wrongly.
    case configuration(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// The service answered with an HTTP error status.
    case httpStatusError(Int, RecoverySuggestion, (any Error)? = nil)
    /// No object at that key.
    case keyNotFound(String, ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// The local file to upload does not exist.
    case localFileNotFound(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// The service failed.
    case service(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// Something unexpected.
    case unknown(ErrorDescription, (any Error)? = nil)
    /// An input is invalid (a key that escapes the root, a negative expiry, ...).
    case validation(Field, ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// The transfer was cancelled.
    case cancelled(ErrorDescription, RecoverySuggestion, (any Error)? = nil)

    /// What went wrong.
    public var errorDescription: ErrorDescription {
        switch self {
        case .accessDenied(let d, _, _), .authError(let d, _, _), .configuration(let d, _, _), .keyNotFound(_, let d, _, _),
            .localFileNotFound(let d, _, _), .service(let d, _, _), .unknown(let d, _), .validation(_, let d, _, _),
            .cancelled(let d, _, _):
            d
        case .httpStatusError(let status, _, _):
            "The storage service answered with HTTP status \(status)."
        }
    }

    /// How to fix it.
    public var recoverySuggestion: RecoverySuggestion {
        switch self {
        case .accessDenied(_, let r, _), .authError(_, let r, _), .configuration(_, let r, _), .httpStatusError(_, let r, _),
            .keyNotFound(_, _, let r, _), .localFileNotFound(_, let r, _), .service(_, let r, _), .validation(_, _, let r, _),
            .cancelled(_, let r, _):
            r
        case .unknown:
            AmplifyErrorMessages.shouldNotHappen
        }
    }

    /// The error underneath.
    public var underlyingError: (any Error)? {
        switch self {
        case .accessDenied(_, _, let e), .authError(_, _, let e), .configuration(_, _, let e), .httpStatusError(_, _, let e),
            .keyNotFound(_, _, _, let e), .localFileNotFound(_, _, let e), .service(_, _, let e), .unknown(_, let e),
            .validation(_, _, _, let e), .cancelled(_, _, let e):
            e
        }
    }
}

extension StorageError {
    /// amplify-swift's wrapping initialiser: a `StorageError` stays as it is; anything else becomes
    /// ``unknown(_:_:)`` with `errorDescription` (and `recoverySuggestion` where the case has one).
    public init(
        errorDescription: ErrorDescription = "An unknown error occurred", recoverySuggestion: RecoverySuggestion = "(Ignored)",
        error: any Error
    ) {
        if let error = error as? StorageError {
            self = error
        } else {
            self = .unknown(errorDescription, error)
        }
    }
}
