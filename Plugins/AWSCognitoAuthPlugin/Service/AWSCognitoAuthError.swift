import AWSPluginsCore
import Amplify

/// What Cognito said went wrong, as amplify-swift names it: the `underlyingError` of the
/// `AuthError` a call throws (`if case .service(_, _, let e) = error, e as? AWSCognitoAuthError == .usernameExists`).
public enum AWSCognitoAuthError: Error, Sendable, Equatable {
    /// No such user (`UserNotFoundException`).
    case userNotFound
    /// The user has not confirmed the account (`UserNotConfirmedException`).
    case userNotConfirmed
    /// The username is taken (`UsernameExistsException`).
    case usernameExists
    /// An alias (email, phone) already belongs to another user (`AliasExistsException`).
    case aliasExists
    /// The code could not be sent (`CodeDeliveryFailureException`).
    case codeDelivery
    /// Wrong confirmation code (`CodeMismatchException`).
    case codeMismatch
    /// The code has expired (`ExpiredCodeException`).
    case codeExpired
    /// A parameter is invalid (`InvalidParameterException`).
    case invalidParameter
    /// The password does not meet the pool's policy (`InvalidPasswordException`).
    case invalidPassword
    /// Too many requests or attempts (`LimitExceededException`, `TooManyRequestsException`).
    case limitExceeded
    /// Too many failed attempts (`TooManyFailedAttemptsException`).
    case failedAttemptsLimitExceeded
    /// The user must reset the password (`PasswordResetRequiredException`).
    case passwordResetRequired
    /// The pool or app client does not exist (`ResourceNotFoundException`).
    case resourceNotFound
    /// A Lambda trigger failed (`UserLambdaValidationException`, `UnexpectedLambdaException`, `InvalidLambdaResponseException`).
    case lambda
    /// The token type cannot be revoked (`UnsupportedTokenTypeException`).
    case unsupportedToken
    /// Cognito could not be reached.
    case network
    /// Another service error; the code is Cognito's `__type`.
    case other(String)

    /// The case for Cognito's error code.
    init(code: String) {
        switch code {
        case "UserNotFoundException": self = .userNotFound
        case "UserNotConfirmedException": self = .userNotConfirmed
        case "UsernameExistsException": self = .usernameExists
        case "AliasExistsException": self = .aliasExists
        case "CodeDeliveryFailureException": self = .codeDelivery
        case "CodeMismatchException": self = .codeMismatch
        case "ExpiredCodeException": self = .codeExpired
        case "InvalidParameterException": self = .invalidParameter
        case "InvalidPasswordException": self = .invalidPassword
        case "LimitExceededException", "TooManyRequestsException": self = .limitExceeded
        case "TooManyFailedAttemptsException": self = .failedAttemptsLimitExceeded
        case "PasswordResetRequiredException": self = .passwordResetRequired
        case "ResourceNotFoundException": self = .resourceNotFound
        case "UserLambdaValidationException", "UnexpectedLambdaException", "InvalidLambdaResponseException": self = .lambda
        case "UnsupportedTokenTypeException": self = .unsupportedToken
        default: self = .other(code)
        }
    }
}

extension AuthError {
    /// The ``AuthError`` for a failed Cognito call: `NotAuthorizedException` is
    /// ``notAuthorized(_:_:_:)``, a missing pool or client ``configuration(_:_:_:)``, everything
    /// else ``service(_:_:_:)`` with an ``AWSCognitoAuthError`` underneath.
    static func cognito(_ error: any Error, operation: String) -> AuthError {
        if let error = error as? AuthError { return error }
        guard let service = error as? AWSPluginsError else {
            return .service("\(operation) could not reach Cognito: \(error)", "Check the network and the endpoint.", AWSCognitoAuthError.network)
        }
        let message = service.errorDescription
        let kind = AWSCognitoAuthError(code: service.code)
        switch kind {
        case .other("NotAuthorizedException"):
            return .notAuthorized("\(operation): \(message)", "Check the username and password, or sign in again.", kind)
        case .resourceNotFound:
            return .configuration(
                "\(operation): \(message)", "Check CognitoUserPool.Default.PoolId and AppClientId in the configuration file.", kind)
        case .userNotFound:
            return .service("\(operation): \(message)", "Check the username, or sign up first.", kind)
        case .usernameExists:
            return .service("\(operation): \(message)", "Pick another username, or sign in.", kind)
        case .invalidPassword:
            return .service("\(operation): \(message)", "Choose a password that meets the pool's policy.", kind)
        case .codeMismatch, .codeExpired:
            return .service("\(operation): \(message)", "Check the code, or ask for a new one.", kind)
        case .userNotConfirmed:
            return .service("\(operation): \(message)", "Confirm the account with the code that was sent.", kind)
        case .limitExceeded, .failedAttemptsLimitExceeded:
            return .service("\(operation): \(message)", "Wait and try again later.", kind)
        default:
            return .service("\(operation): \(message)", "See Cognito's message; the error code is \(service.code).", kind)
        }
    }
}
