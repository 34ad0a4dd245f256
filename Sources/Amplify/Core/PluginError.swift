/// Errors about plugins: adding them, finding them, configuring them.
public enum PluginError: AmplifyError {
    /// A plugin was added to a category it does not implement.
    case mismatchedPlugin(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// No plugin is registered for a key or category.
    case noSuchPlugin(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// A plugin's own block in the configuration is missing a value or has one of the wrong type.
    case pluginConfigurationError(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// Anything else.
    case unknown(ErrorDescription, RecoverySuggestion, (any Error)? = nil)

    /// What went wrong.
    public var errorDescription: ErrorDescription {
        switch self {
        case .mismatchedPlugin(let d, _, _), .noSuchPlugin(let d, _, _), .pluginConfigurationError(let d, _, _),
            .unknown(let d, _, _):
            d
        }
    }

    /// How to fix it.
    public var recoverySuggestion: RecoverySuggestion {
        switch self {
        case .mismatchedPlugin(_, let r, _), .noSuchPlugin(_, let r, _), .pluginConfigurationError(_, let r, _),
            .unknown(_, let r, _):
            r
        }
    }

    /// The error underneath.
    public var underlyingError: (any Error)? {
        switch self {
        case .mismatchedPlugin(_, _, let e), .noSuchPlugin(_, _, let e), .pluginConfigurationError(_, _, let e),
            .unknown(_, _, let e):
            e
        }
    }
}

extension PluginError {
    /// amplify-swift's wrapping initialiser: a `PluginError` stays as it is; anything else becomes
    /// ``unknown(_:_:_:)`` with `errorDescription` (and `recoverySuggestion` where the case has one).
    public init(
        errorDescription: ErrorDescription = "An unknown error occurred", recoverySuggestion: RecoverySuggestion = "(Ignored)",
        error: any Error
    ) {
        if let error = error as? PluginError {
            self = error
        } else {
            self = .unknown(errorDescription, recoverySuggestion, error)
        }
    }
}
