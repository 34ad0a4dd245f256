import Foundation

/// Reads the error an AWS JSON 1.1 service answers with (`{"__type": "…#Code", "message": …}` or
/// the `x-amzn-ErrorType` header) and turns it into an ``AWSPluginsError`` with a recovery
/// suggestion.
public enum AWSJSONError {
    /// Suggestions for the codes the plugins meet most.
    static let suggestions: [String: String] = [
        "NotAuthorizedException": "Check the credentials; sign in again if the session was revoked.",
        "UserNotFoundException": "Check the username, or sign up first.",
        "UsernameExistsException": "Choose another username, or sign in.",
        "CodeMismatchException": "Check the code and try again.",
        "ExpiredCodeException": "Request a new code.",
        "InvalidPasswordException": "Choose a password that meets the pool's policy.",
        "UserNotConfirmedException": "Confirm the account with the code that was sent.",
        "ResourceNotFoundException": "Check the resource's name and region in the configuration.",
        "AccessDeniedException": "Grant the caller's role permission for this action.",
        "UnrecognizedClientException": "Check the access key id.",
        "InvalidSignatureException": "Check the secret access key and the machine's clock.",
        "ExpiredTokenException": "Refresh the temporary credentials.",
    ]

    /// The error in an answer with `status`, `body` and the `x-amzn-ErrorType` header value.
    /// An XML error body (what a proxy or a stand-in may answer, e.g. moto's signature check)
    /// is read by ``AWSXMLError``.
    public static func parse(status: Int, body: Data, errorTypeHeader: String? = nil) -> AWSPluginsError {
        if errorTypeHeader == nil, body.first(where: { !" \t\r\n".utf8.contains($0) }) == UInt8(ascii: "<") {
            return AWSXMLError.parse(status: status, body: body)
        }
        let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        let rawType = (object?["__type"] as? String) ?? (object?["code"] as? String) ?? errorTypeHeader ?? "HTTP\(status)"
        let code = rawType.split(separator: "#").last.map { String($0.split(separator: ":").first ?? $0) } ?? rawType
        let message = (object?["message"] as? String) ?? (object?["Message"] as? String) ?? "The service answered with HTTP status \(status)."
        let suggestion =
            suggestions[code]
            ?? (RetryPolicy.throttlingCodes.contains(code) || status >= 500
                ? "Try again later; the request was retried with backoff."
                : "See the service's documentation for \(code).")
        return AWSPluginsError(code: code, "\(code): \(message)", suggestion, httpStatus: status)
    }
}
