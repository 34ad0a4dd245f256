/// Errors from the Auth category.
public enum AuthError: AmplifyError {
    /// The plugin or category is not configured, or configured wrongly.
    case configuration(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// The service answered with an error.
    case service(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// Something unexpected.
    case unknown(ErrorDescription, (any Error)? = nil)
    /// An input field is invalid.
    case validation(Field, ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// The credentials were rejected (wrong password, revoked token, ...).
    case notAuthorized(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// The call does not fit the current state (e.g. sign in while signed in).
    case invalidState(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// The call needs a signed-in user and there is none.
    case signedOut(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// The session expired and could not be refreshed; sign in again.
    case sessionExpired(ErrorDescription, RecoverySuggestion, (any Error)? = nil)

    /// What went wrong.
    public var errorDescription: ErrorDescription {
        switch self {
        case .configuration(let d, _, _), .service(let d, _, _), .unknown(let d, _), .validation(_, let d, _, _),
            .notAuthorized(let d, _, _), .invalidState(let d, _, _), .signedOut(let d, _, _), .sessionExpired(let d, _, _):
            d
        }
    }

    /// How to fix it.
    public var recoverySuggestion: RecoverySuggestion {
        switch self {
        case .configuration(_, let r, _), .service(_, let r, _), .validation(_, _, let r, _), .notAuthorized(_, let r, _),
            .invalidState(_, let r, _), .signedOut(_, let r, _), .sessionExpired(_, let r, _):
            r
        case .unknown:
            AmplifyErrorMessages.shouldNotHappen
        }
    }

    /// The error underneath.
    public var underlyingError: (any Error)? {
        switch self {
        case .configuration(_, _, let e), .service(_, _, let e), .unknown(_, let e), .validation(_, _, _, let e),
            .notAuthorized(_, _, let e), .invalidState(_, _, let e), .signedOut(_, _, let e), .sessionExpired(_, _, let e):
            e
        }
    }
}

extension AuthError {
    /// amplify-swift's wrapping initialiser: a `AuthError` stays as it is; anything else becomes
    /// ``unknown(_:_:)`` with `errorDescription` (and `recoverySuggestion` where the case has one).
    public init(
        errorDescription: ErrorDescription = "An unknown error occurred", recoverySuggestion: RecoverySuggestion = "(Ignored)",
        error: any Error
    ) {
        if let error = error as? AuthError {
            self = error
        } else {
            self = .unknown(errorDescription, error)
        }
    }
}
