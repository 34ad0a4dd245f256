import Foundation

/// Reads the error a REST-XML service (S3) answers with (`<Error><Code>…</Code><Message>…`, or
/// `<ErrorResponse><Error>…` or `<ErrorResponse><Errors><Error>…` for query services) and turns it into an ``AWSPluginsError`` with a
/// recovery suggestion. A `HEAD` answer has no body, so its code comes from the status.
public enum AWSXMLError {
    /// Suggestions for the codes the plugins meet most.
    static let suggestions: [String: String] = [
        "NoSuchKey": "Check the key; list the bucket to see which keys exist.",
        "NoSuchBucket": "Check the bucket name and region in the configuration.",
        "NoSuchUpload": "The multipart upload was completed or aborted; start the upload again.",
        "AccessDenied": "Grant the caller's role permission for this action on this bucket and key.",
        "InvalidAccessKeyId": "Check the access key id.",
        "SignatureDoesNotMatch": "Check the secret access key and the machine's clock.",
        "RequestTimeTooSkewed": "Set the machine's clock (use NTP).",
        "ExpiredToken": "Refresh the temporary credentials.",
        "InvalidRange": "Ask for a range that starts inside the object.",
        "EntityTooSmall": "Every part but the last must be at least 5 MiB.",
        "PermanentRedirect": "The bucket is in another region; set that region in the configuration.",
        "NotFound": "Check the bucket and key.",
        "Forbidden": "Check the credentials and the caller's permissions.",
    ]

    /// The error in an answer with `status` and `body` (empty for `HEAD`).
    public static func parse(status: Int, body: Data) -> AWSPluginsError {
        let root = body.isEmpty ? nil : try? XMLElementTree.parse(body)
        let error = root.flatMap { $0.name == "Error" ? $0 : $0.child("Error") ?? $0.child("Errors")?.child("Error") }
        let code = error?.text(of: "Code") ?? codeForStatus(status)
        let message = error?.text(of: "Message") ?? "The service answered with HTTP status \(status)."
        let suggestion =
            suggestions[code]
            ?? (RetryPolicy.throttlingCodes.contains(code) || status >= 500
                ? "Try again later; the request was retried with backoff."
                : "See the service's documentation for \(code).")
        return AWSPluginsError(code: code, "\(code): \(message)", suggestion, httpStatus: status)
    }

    private static func codeForStatus(_ status: Int) -> String {
        switch status {
        case 301: "PermanentRedirect"
        case 403: "Forbidden"
        case 404: "NotFound"
        case 412: "PreconditionFailed"
        case 416: "InvalidRange"
        case 503: "SlowDown"
        default: "HTTP\(status)"
        }
    }
}
