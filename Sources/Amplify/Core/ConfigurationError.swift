/// Errors raised while finding, reading or applying a configuration.
public enum ConfigurationError: AmplifyError {
    /// `Amplify.configure` was called when Amplify was already configured.
    case amplifyAlreadyConfigured(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// The configuration file is missing, unreadable, not JSON, or not shaped as Amplify expects.
    case invalidAmplifyConfigurationFile(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// A Gen 2 `amplify_outputs.json` is missing, unreadable, or not shaped as expected.
    case invalidAmplifyOutputsFile(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// A value could not be decoded into the type a category or plugin needs.
    case unableToDecode(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// Anything else.
    case unknown(ErrorDescription, RecoverySuggestion, (any Error)? = nil)

    /// What went wrong.
    public var errorDescription: ErrorDescription {
        switch self {
        case .amplifyAlreadyConfigured(let d, _, _), .invalidAmplifyConfigurationFile(let d, _, _),
            .invalidAmplifyOutputsFile(let d, _, _), .unableToDecode(let d, _, _), .unknown(let d, _, _):
            d
        }
    }

    /// How to fix it.
    public var recoverySuggestion: RecoverySuggestion {
        switch self {
        case .amplifyAlreadyConfigured(_, let r, _), .invalidAmplifyConfigurationFile(_, let r, _),
            .invalidAmplifyOutputsFile(_, let r, _), .unableToDecode(_, let r, _), .unknown(_, let r, _):
            r
        }
    }

    /// The error underneath.
    public var underlyingError: (any Error)? {
        switch self {
        case .amplifyAlreadyConfigured(_, _, let e), .invalidAmplifyConfigurationFile(_, _, let e),
            .invalidAmplifyOutputsFile(_, _, let e), .unableToDecode(_, _, let e), .unknown(_, _, let e):
            e
        }
    }
}

extension ConfigurationError {
    /// amplify-swift's wrapping initialiser: a `ConfigurationError` stays as it is; anything else becomes
    /// ``unknown(_:_:_:)`` with `errorDescription` (and `recoverySuggestion` where the case has one).
    public init(
        errorDescription: ErrorDescription = "An unknown error occurred", recoverySuggestion: RecoverySuggestion = "(Ignored)",
        error: any Error
    ) {
        if let error = error as? ConfigurationError {
            self = error
        } else {
            self = .unknown(errorDescription, recoverySuggestion, error)
        }
    }
}
