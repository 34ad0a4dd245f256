import Foundation

/// What a request sends as its body.
public enum HTTPBody: Sendable, Equatable {
    /// No body.
    case empty
    /// These bytes.
    case bytes([UInt8])
    /// The contents of the file at this path, streamed from disk.
    case file(String)
    /// `length` bytes of the file at `path` from `offset` (a multipart upload's part), streamed.
    case fileRange(String, offset: Int64, length: Int64)
}

/// An HTTP request for ``HTTPClient``.
public struct HTTPRequest: Sendable {
    /// `GET`, `PUT`, `POST`, `DELETE`, `HEAD`, ...
    public var method: String
    /// The URL.
    public var url: URL {
        didSet { urlText = nil }
    }
    /// `url`'s text when the sender has it already (an API's endpoint, read once at
    /// configuration): curl gets it instead of a fresh `url.absoluteString`. Cleared when `url`
    /// changes.
    package var urlText: String?
    /// Headers, in order.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: HTTPBody
    /// The whole transfer must end within this time, or it fails with a timeout.
    public var timeout: Duration?
    /// Making the connection (TCP and TLS) must take no longer than this, or the transfer fails
    /// with a timeout (`nil`: curl's default, 300 s).
    public var connectTimeout: Duration?
    /// A transfer slower than this fails with a timeout (`nil`: no limit).
    public var lowSpeedLimit: HTTPLowSpeedLimit?
    /// How many bytes of this response's body are already in ``responseFile`` (0: none, the
    /// file is emptied when the transfer starts). With more, the request continues a download
    /// (it carries a `Range` for the rest): a 206 answer's body is written after those bytes, a
    /// 200 answer's (a server that ignored the range) replaces the file from its start.
    public var responseFileOffset: Int64 = 0
    /// Where the response body goes: memory (`nil`) or the file at this path, streamed. The file
    /// is created (or truncated) when the transfer starts; only a 2xx answer's body is written to
    /// it; any other answer's body stays in ``HTTPResponse/body`` so its error can be read.
    public var responseFile: String?
    /// A PEM file of the certificate authorities to trust instead of the system's (a private CA,
    /// or a test server's self-signed certificate); `nil` for the system's.
    public var trustedCertificatesFile: String?
    /// The most body bytes the answer may have: the transfer fails (kind `.other`, "the answer's
    /// body is over N bytes") as soon as more arrive, before they are kept (`nil`: no limit). For
    /// answers read into memory from a server that could be hostile or broken (a JWKS document).
    public var maximumResponseBytes: Int64?
    /// Called on the loop thread with (bytes sent, bytes to send) as the upload progresses.
    public var uploadProgress: (@Sendable (Int64, Int64) -> Void)?
    /// Called on the loop thread with (bytes received, bytes expected) as the download progresses.
    public var downloadProgress: (@Sendable (Int64, Int64) -> Void)?
    /// The service metrics and logs name the request by (`cognito-idp`, `s3`); `http` when
    /// `nil`.
    public var service: String?
    /// The operation metrics and logs name the request by (`InitiateAuth`, `PutObject`); the
    /// method when `nil`.
    public var operation: String?

    /// A request.
    public init(
        method: String = "GET", url: URL, headers: [(name: String, value: String)] = [], body: HTTPBody = .empty,
        timeout: Duration? = nil, responseFile: String? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.responseFile = responseFile
    }
}

/// What the server answered.
public struct HTTPResponse: Sendable {
    /// The status code.
    public let status: Int
    /// The headers of the final response, in order (names as the server wrote them).
    public let headers: [(name: String, value: String)]
    /// The body (empty when a 2xx answer's body went to ``HTTPRequest/responseFile``).
    public let body: [UInt8]

    /// The first header called `name`, case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }
}

/// A transfer that did not produce a response: no connection, a timeout, a cancelled task, a
/// file that could not be read or written.
public struct HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure.
    public enum Kind: Sendable, Equatable {
        /// The connection could not be made or broke.
        case connection
        /// The time limit passed.
        case timeout
        /// The task was cancelled.
        case cancelled
        /// Anything else curl reports.
        case other
    }

    /// The kind.
    public let kind: Kind
    /// curl's result code (0 for cancellation).
    public let curlCode: Int32
    /// What curl said.
    public let message: String
    /// How many attempts were made before this error was given up on (1: the request was not
    /// retried). Set by the AWS clients' retry policy.
    public internal(set) var attempts = 1
    /// What had arrived when a transfer broke off after its answer began: the status, headers
    /// and the part of the body received (`nil` when no answer had begun).
    public internal(set) var partial: HTTPPartialResponse?

    /// "timeout (curl 28): Operation timed out after 200 milliseconds ...", followed by
    /// "(3 attempts)" when the request was retried.
    public var description: String {
        "\(kind) (curl \(curlCode)): \(message)" + (attempts > 1 ? " (\(attempts) attempts)" : "")
    }

    /// Compares kind, code, message and attempts.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.kind == rhs.kind && lhs.curlCode == rhs.curlCode && lhs.message == rhs.message && lhs.attempts == rhs.attempts
    }
}

/// What had arrived of an answer when its transfer broke off (a connection cut mid-body, a
/// stall that hit the low-speed limit or the deadline).
public struct HTTPPartialResponse: Sendable {
    /// The answer's status.
    public let status: Int
    /// Its headers.
    public let headers: [(name: String, value: String)]
    /// The body bytes received, when the body went to memory (empty when it went to a file).
    public let body: [UInt8]
    /// How many body bytes were received (to memory or to the response file).
    public let bodyBytes: Int64

    /// The first header called `name`, case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }
}
