import Foundation

/// AWS access keys: long-term (an access key id and secret) or temporary (with a session token
/// and an expiry).
public struct AWSCredentials: Sendable, Equatable, CustomStringConvertible {
    /// The access key id (`AKIA…` or `ASIA…`).
    public let accessKeyId: String
    /// The secret access key. Never logged.
    public let secretAccessKey: String
    /// The session token of temporary credentials.
    public let sessionToken: String?
    /// When temporary credentials stop working.
    public let expiration: Date?

    /// Credentials from their parts.
    public init(accessKeyId: String, secretAccessKey: String, sessionToken: String? = nil, expiration: Date? = nil) {
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.expiration = expiration
    }

    /// The access key id only: the secret and the token stay out of logs and messages.
    public var description: String { "AWSCredentials(\(accessKeyId), secret: <redacted>\(sessionToken == nil ? "" : ", session token: <redacted>"))" }
}
