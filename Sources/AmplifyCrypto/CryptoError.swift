/// A failure inside OpenSSL, or input the crypto helpers cannot use.
public struct CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was being done ("scrypt", "ES256 sign", ...).
    public let operation: String
    /// OpenSSL's reason, or what was wrong with the input.
    public let reason: String

    /// An error for `operation` failing because of `reason`.
    public init(_ operation: String, _ reason: String) {
        self.operation = operation
        self.reason = reason
    }

    /// "scrypt failed: ..."
    public var description: String { "\(operation) failed: \(reason)" }
}
