import Amplify
import Foundation

/// The `localAuthPlugin` block of the configuration file. Every key is optional:
///
/// ```json
/// "localAuthPlugin": {
///   "directory": ".amplify/local-auth",
///   "credentialStore": ".amplify/credentials.sqlite",
///   "clientId": "local-client", "issuer": "urn:amplify:local-auth",
///   "accessTokenLifetimeSeconds": 3600, "refreshTokenLifetimeSeconds": 2592000,
///   "signUpRequiresConfirmation": true, "codeLifetimeSeconds": 900, "codeMaxAttempts": 5,
///   "passwordPolicy": {"minLength": 8, "requireLowercase": true, "requireUppercase": true,
///                      "requireNumbers": true, "requireSymbols": false},
///   "lockout": {"maxFailedAttempts": 5, "lockoutSeconds": 300},
///   "passwordHashCost": 32768
/// }
/// ```
/// Relative paths resolve against the configuration file's folder.
public struct LocalAuthConfiguration: Sendable, Equatable {
    /// Rules a new password must meet.
    public struct PasswordPolicy: Sendable, Equatable {
        /// The fewest characters a password may have.
        public var minLength = 8
        /// Whether a lower-case letter is required.
        public var requireLowercase = true
        /// Whether an upper-case letter is required.
        public var requireUppercase = true
        /// Whether a digit is required.
        public var requireNumbers = true
        /// Whether a symbol (neither letter nor digit) is required.
        public var requireSymbols = false

        /// The default policy (8 characters, lower, upper, digit).
        public init() {}

        /// Why `password` does not meet the policy, or `nil` if it does.
        public func violation(of password: String) -> String? {
            if password.count < minLength { return "at least \(minLength) characters" }
            if requireLowercase, !password.contains(where: \.isLowercase) { return "a lower-case letter" }
            if requireUppercase, !password.contains(where: \.isUppercase) { return "an upper-case letter" }
            if requireNumbers, !password.contains(where: \.isNumber) { return "a digit" }
            if requireSymbols, !password.contains(where: { !$0.isLetter && !$0.isNumber }) { return "a symbol" }
            return nil
        }
    }

    /// The folder of the user pool (users.sqlite, the signing key, the pool secret).
    public var directory: String
    /// The credential store shared by the Auth plugins.
    public var credentialStorePath: String
    /// The `aud` / `client_id` of the tokens.
    public var clientId = "local-client"
    /// The `iss` of the tokens.
    public var issuer = "urn:amplify:local-auth"
    /// How long ID and access tokens live.
    public var accessTokenLifetime: TimeInterval = 3600
    /// How long a refresh token lives.
    public var refreshTokenLifetime: TimeInterval = 30 * 24 * 3600
    /// Whether a new account must be confirmed with a code.
    public var signUpRequiresConfirmation = true
    /// How long a confirmation or reset code is valid.
    public var codeLifetime: TimeInterval = 900
    /// Wrong guesses before a code is void.
    public var codeMaxAttempts = 5
    /// The password rules.
    public var passwordPolicy = PasswordPolicy()
    /// Wrong passwords in a row before the account is locked.
    public var maxFailedAttempts = 5
    /// How long a locked account stays locked.
    public var lockoutDuration: TimeInterval = 300
    /// scrypt's N for password hashes (a power of two).
    public var passwordHashCost: UInt64 = 1 << 15

    /// Defaults, with the pool in `directory`.
    public init(directory: String) {
        self.directory = directory
        credentialStorePath = (directory as NSString).appendingPathComponent("credentials.sqlite")
    }

    /// Reads the block (`nil` or `{}` gives the defaults).
    /// - Throws: `ConfigurationValueError` naming the key that is wrong.
    public init(json: JSONValue?) throws {
        let block = json ?? [:]
        self.init(directory: Amplify.resolvePath(try block.optionalString("directory") ?? ".amplify/local-auth"))
        if let store = try block.optionalString("credentialStore") { credentialStorePath = Amplify.resolvePath(store) }
        clientId = try block.optionalString("clientId") ?? clientId
        issuer = try block.optionalString("issuer") ?? issuer
        accessTokenLifetime = try Self.positive(block, "accessTokenLifetimeSeconds") ?? accessTokenLifetime
        refreshTokenLifetime = try Self.positive(block, "refreshTokenLifetimeSeconds") ?? refreshTokenLifetime
        signUpRequiresConfirmation = try block.optionalBool("signUpRequiresConfirmation") ?? true
        codeLifetime = try Self.positive(block, "codeLifetimeSeconds") ?? codeLifetime
        codeMaxAttempts = try block.optionalInt("codeMaxAttempts") ?? codeMaxAttempts
        passwordPolicy.minLength = try block.optionalInt("passwordPolicy.minLength") ?? passwordPolicy.minLength
        passwordPolicy.requireLowercase = try block.optionalBool("passwordPolicy.requireLowercase") ?? passwordPolicy.requireLowercase
        passwordPolicy.requireUppercase = try block.optionalBool("passwordPolicy.requireUppercase") ?? passwordPolicy.requireUppercase
        passwordPolicy.requireNumbers = try block.optionalBool("passwordPolicy.requireNumbers") ?? passwordPolicy.requireNumbers
        passwordPolicy.requireSymbols = try block.optionalBool("passwordPolicy.requireSymbols") ?? passwordPolicy.requireSymbols
        maxFailedAttempts = try block.optionalInt("lockout.maxFailedAttempts") ?? maxFailedAttempts
        lockoutDuration = try Self.positive(block, "lockout.lockoutSeconds") ?? lockoutDuration
        if let cost = try block.optionalInt("passwordHashCost") {
            guard cost >= 2, cost & (cost - 1) == 0 else {
                throw ConfigurationValueError(keyPath: "passwordHashCost", expected: "a power of two (e.g. 32768)", found: .number(Double(cost)))
            }
            passwordHashCost = UInt64(cost)
        }
    }

    private static func positive(_ block: JSONValue, _ key: String) throws(ConfigurationValueError) -> TimeInterval? {
        guard let value = try block.optionalDouble(key) else { return nil }
        guard value > 0 else { throw ConfigurationValueError(keyPath: key, expected: "a positive number of seconds", found: .number(value)) }
        return value
    }
}
