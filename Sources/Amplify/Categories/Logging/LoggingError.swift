/// Errors from the Logging category: adding and finding its plugin.
public enum LoggingError: AmplifyError {
    /// The plugin has no key, or no plugin has the key asked for.
    case configuration(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// Something unexpected.
    case unknown(ErrorDescription, (any Error)?)

    /// Wraps `error`: a `LoggingError` stays as it is, anything else becomes ``unknown(_:_:)``
    /// with `errorDescription`.
    public init(
        errorDescription: ErrorDescription = "An unknown error occurred", recoverySuggestion: RecoverySuggestion = "(Ignored)", error: any Error
    ) {
        if let error = error as? LoggingError {
            self = error
        } else {
            self = .unknown(errorDescription, error)
        }
    }

    /// What went wrong.
    public var errorDescription: ErrorDescription {
        switch self {
        case .configuration(let d, _, _): d
        case .unknown(let d, _): "Unexpected error occurred with message: \(d)"
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
