/// A short sentence saying what went wrong.
public typealias ErrorDescription = String
/// A short sentence saying how to fix it.
public typealias RecoverySuggestion = String
/// The name of the input field an error is about.
public typealias Field = String

/// The common shape of every error Amplify throws: what went wrong, how to fix it, and the
/// error underneath, if any.
public protocol AmplifyError: Error, CustomDebugStringConvertible {
    /// What went wrong, in a sentence.
    var errorDescription: ErrorDescription { get }
    /// How to fix it, in a sentence.
    var recoverySuggestion: RecoverySuggestion { get }
    /// The error that caused this one, if any.
    var underlyingError: (any Error)? { get }
}

extension AmplifyError {
    /// The description, the recovery suggestion and the underlying error, one per line.
    public var debugDescription: String {
        var lines = [errorDescription]
        if !recoverySuggestion.isEmpty { lines.append("Recovery suggestion: \(recoverySuggestion)") }
        if let underlyingError { lines.append("Caused by: \(underlyingError)") }
        return lines.joined(separator: "\n")
    }
}

/// Text shared by several errors.
enum AmplifyErrorMessages {
    static let shouldNotHappen = "This should not happen; please report it with the steps that led to it."
}
