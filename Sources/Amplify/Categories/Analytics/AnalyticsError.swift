/// Errors from the Analytics category. Analytics calls do not throw: these reach the Hub
/// (`.analytics` channel) and the log.
public enum AnalyticsError: AmplifyError {
    /// The plugin or category is not configured, or configured wrongly.
    case configuration(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// Something unexpected.
    case unknown(ErrorDescription, (any Error)? = nil)

    /// What went wrong.
    public var errorDescription: ErrorDescription {
        switch self {
        case .configuration(let d, _, _), .unknown(let d, _): d
        }
    }

    /// How to fix it.
    public var recoverySuggestion: RecoverySuggestion {
        switch self {
        case .configuration(_, let r, _): r
        case .unknown: AmplifyErrorMessages.shouldNotHappen
        }
    }

    /// The error underneath.
    public var underlyingError: (any Error)? {
        switch self {
        case .configuration(_, _, let e), .unknown(_, let e): e
        }
    }
}

extension AnalyticsError {
    /// amplify-swift's wrapping initialiser: a `AnalyticsError` stays as it is; anything else becomes
    /// ``unknown(_:_:)`` with `errorDescription` (and `recoverySuggestion` where the case has one).
    public init(
        errorDescription: ErrorDescription = "An unknown error occurred", recoverySuggestion: RecoverySuggestion = "(Ignored)",
        error: any Error
    ) {
        if let error = error as? AnalyticsError {
            self = error
        } else {
            self = .unknown(errorDescription, error)
        }
    }
}
