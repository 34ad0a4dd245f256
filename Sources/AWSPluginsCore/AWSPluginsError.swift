import Amplify

/// A failure in the AWS plumbing (credentials, endpoints, a service's error answer), with the
/// service's error code when there is one.
public struct AWSPluginsError: AmplifyError, Equatable {
    /// The service's error code (`NotAuthorizedException`), or a local code (`CredentialsNotFound`).
    public let code: String
    /// What went wrong.
    public let errorDescription: ErrorDescription
    /// How to fix it.
    public let recoverySuggestion: RecoverySuggestion
    /// The HTTP status, for a service's answer.
    public let httpStatus: Int?
    /// Never set: the description carries what the service said.
    public var underlyingError: (any Error)? { nil }

    /// An error with `code`, what went wrong and how to fix it.
    public init(code: String, _ description: ErrorDescription, _ suggestion: RecoverySuggestion, httpStatus: Int? = nil) {
        self.code = code
        errorDescription = description
        recoverySuggestion = suggestion
        self.httpStatus = httpStatus
    }

    /// Compares code, texts and status.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.code == rhs.code && lhs.errorDescription == rhs.errorDescription
            && lhs.recoverySuggestion == rhs.recoverySuggestion && lhs.httpStatus == rhs.httpStatus
    }
}
