import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Errors from the API category (amplify-swift's cases).
///
/// Differs from amplify-swift in what Swift 6 requires: ``UserInfo`` holds `Sendable` values.
/// The ``httpStatusError(_:_:)`` response is an ``APIHTTPURLResponse``, which also carries the
/// body (read it with ``httpResponseBody``).
public enum APIError: AmplifyError {
    /// Extra information about a network error.
    public typealias UserInfo = [String: any Sendable]
    /// An HTTP status code.
    public typealias StatusCode = Int

    /// Something unexpected.
    case unknown(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// The configuration of an API is missing or wrong (no such API, no plugin, a bad block).
    case invalidConfiguration(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// The URL of a request could not be built.
    case invalidURL(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// The operation failed: a response that is not JSON, a subscription the server refused, a
    /// variable that cannot be encoded, an authorization that could not be made.
    case operationError(ErrorDescription, RecoverySuggestion, (any Error)? = nil)
    /// The network failed: no connection, a timeout, a dropped WebSocket.
    case networkError(ErrorDescription, UserInfo? = nil, (any Error)? = nil)
    /// The service answered with a status outside 200–299.
    case httpStatusError(StatusCode, HTTPURLResponse)
    /// An error of another category's plugin (an Auth error while getting a token).
    case pluginError(any AmplifyError)

    /// What went wrong.
    public var errorDescription: ErrorDescription {
        switch self {
        case .unknown(let description, _, _):
            "Unexpected error occurred with message: \(description)"
        case .invalidConfiguration(let description, _, _), .invalidURL(let description, _, _), .operationError(let description, _, _),
            .networkError(let description, _, _):
            description
        case .httpStatusError(let status, let response):
            "The HTTP response status code is [\(status)]."
                + ((response as? APIHTTPURLResponse)?.serviceMessage.map { " The service said: \($0)" } ?? "")
        case .pluginError(let error):
            error.errorDescription
        }
    }

    /// How to fix it.
    public var recoverySuggestion: RecoverySuggestion {
        switch self {
        case .unknown(_, let suggestion, _):
            suggestion.isEmpty ? AmplifyErrorMessages.shouldNotHappen : suggestion
        case .invalidConfiguration(_, let suggestion, _), .invalidURL(_, let suggestion, _), .operationError(_, let suggestion, _):
            suggestion
        case .networkError:
            "Check that the endpoint is reachable from this machine, then try again."
        case .httpStatusError(let status, _):
            switch status {
            case 401, 403:
                "Check the request's authorization: the API key, the signed-in user, the IAM credentials or the token the provider returns."
            case 404: "Check the API's endpoint and the request's path."
            case 500...: "The service failed; try again later."
            default: "The headers and body of the answer are in the response (`APIError.httpResponseBody`)."
            }
        case .pluginError(let error):
            error.recoverySuggestion
        }
    }

    /// The error underneath.
    public var underlyingError: (any Error)? {
        switch self {
        case .unknown(_, _, let error), .invalidConfiguration(_, _, let error), .invalidURL(_, _, let error), .operationError(_, _, let error),
            .networkError(_, _, let error):
            error
        case .httpStatusError:
            nil
        case .pluginError(let error):
            error
        }
    }

    /// The body of an ``httpStatusError(_:_:)`` answer; `nil` for the other cases.
    public var httpResponseBody: Data? {
        guard case .httpStatusError(_, let response) = self else { return nil }
        return (response as? APIHTTPURLResponse)?.body
    }
}

/// The HTTP response of an ``APIError/httpStatusError(_:_:)``: the status and headers of an
/// `HTTPURLResponse`, and the body the service sent with them.
public final class APIHTTPURLResponse: HTTPURLResponse, @unchecked Sendable {
    // @unchecked Sendable: restates the conformance HTTPURLResponse already has (Foundation
    // declares it unchecked, and the compiler requires a subclass to restate it); the one
    // property added is an immutable `let` of a Sendable type.

    /// The body of the answer.
    public let body: Data

    /// A response; `nil` only if Foundation refuses the URL.
    /// - Parameters:
    ///   - url: the URL that was requested.
    ///   - statusCode: the status.
    ///   - headerFields: the response's headers.
    ///   - body: the response's body.
    public init?(url: URL, statusCode: Int, headerFields: [String: String], body: Data) {
        self.body = body
        super.init(url: url, statusCode: statusCode, httpVersion: "HTTP/1.1", headerFields: headerFields)
    }

    /// Not supported (there is nothing to decode it from); always `nil`.
    public required init?(coder: NSCoder) { nil }

    /// What the body says the problem is: AppSync's `errors[0]` (`errorType: message`), API
    /// Gateway's or a JSON 1.1 service's `message`, or a short text body.
    var serviceMessage: String? {
        if let json = try? JSONDecoder().decode(JSONValue.self, from: body) {
            if let first = json["errors"]?[0] {
                let type = first["errorType"]?.stringValue.map { "\($0): " } ?? ""
                return type + (first["message"]?.stringValue ?? "(no message)")
            }
            let message = json["message"]?.stringValue ?? json["Message"]?.stringValue
            // API Gateway names the error in a header (`x-amzn-ErrorType: Type:url`), JSON 1.1 services in `__type`.
            let header = value(forHTTPHeaderField: "x-amzn-ErrorType")?.split(separator: ":").first.map(String.init)
            let type = (json["__type"]?.stringValue ?? json["errorType"]?.stringValue ?? header).map { "\($0): " } ?? ""
            if let message { return type + message }
        }
        guard !body.isEmpty, body.count <= 300, let text = String(data: body, encoding: .utf8),
            text.unicodeScalars.allSatisfy({ $0.value >= 0x20 || $0 == "\n" || $0 == "\t" || $0 == "\r" })
        else { return nil }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

extension APIError {
    /// amplify-swift's wrapping initialiser: a `APIError` stays as it is; anything else becomes
    /// ``unknown(_:_:_:)`` with `errorDescription` (and `recoverySuggestion` where the case has one).
    public init(
        errorDescription: ErrorDescription = "An unknown error occurred", recoverySuggestion: RecoverySuggestion = "(Ignored)",
        error: any Error
    ) {
        if let error = error as? APIError {
            self = error
        } else {
            self = .unknown(errorDescription, recoverySuggestion, error)
        }
    }
}
