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
///   "codeRequests": {"limit": 10, "windowSeconds": 3600},
///   "preventUserExistenceErrors": true,
///   "passwordHashCost": 32768
/// }
/// ```
/// Relative paths resolve against the configuration file's folder.
///
/// Every number has a range (``Limits``), checked when the block is read; a value outside it
/// throws `ConfigurationValueError` naming the key and the range:
///
/// | key | range |
/// |---|---|
/// | `accessTokenLifetimeSeconds` | 1 to 86400 (one day) |
/// | `refreshTokenLifetimeSeconds` | 1 to 315360000 (ten years) |
/// | `codeLifetimeSeconds` | 1 to 604800 (one week) |
/// | `codeMaxAttempts` | whole, 1 to 1000 |
/// | `passwordPolicy.minLength` | whole, 1 to 256 |
/// | `lockout.maxFailedAttempts` | whole, 1 to 1000 |
/// | `lockout.lockoutSeconds` | 1 to 31536000 (one year) |
/// | `codeRequests.limit` | whole, 1 to 1000 |
/// | `codeRequests.windowSeconds` | 1 to 604800 (one week) |
/// | `passwordHashCost` | a power of two from 2 to 1048576 (2^20 needs 1 GiB per hash) |
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
    /// The most codes (sign-up, reset, sign-in, verification) one user may be sent per
    /// ``codeRequestWindow``; one more is refused with Cognito's `LimitExceededException`
    /// wording. With ``codeMaxAttempts`` guesses a code and wrong codes counting toward the
    /// lockout, this bounds the guesses at a user's codes per window (see Docs/Reliability.md).
    public var codeRequestLimit = 10
    /// The window ``codeRequestLimit`` counts in.
    public var codeRequestWindow: TimeInterval = 3600
    /// Whether calls on a user who does not exist answer as they would for one who does
    /// (Cognito's `PreventUserExistenceErrors`, on for new app clients): reset-password and
    /// resend-code "send" a code to a simulated destination, confirming it fails as a wrong code
    /// does, sign-in says "Incorrect username or password.". Off, they say there is no such user.
    public var preventUserExistenceErrors = true

    /// The accepted range of each numeric setting.
    public enum Limits {
        /// `accessTokenLifetimeSeconds`: one second to one day.
        public static let accessTokenLifetimeSeconds: ClosedRange<Double> = 1...86_400
        /// `refreshTokenLifetimeSeconds`: one second to ten years.
        public static let refreshTokenLifetimeSeconds: ClosedRange<Double> = 1...315_360_000
        /// `codeLifetimeSeconds`: one second to one week.
        public static let codeLifetimeSeconds: ClosedRange<Double> = 1...604_800
        /// `codeMaxAttempts`.
        public static let codeMaxAttempts: ClosedRange<Int> = 1...1000
        /// `passwordPolicy.minLength`.
        public static let passwordMinLength: ClosedRange<Int> = 1...256
        /// `lockout.maxFailedAttempts`.
        public static let maxFailedAttempts: ClosedRange<Int> = 1...1000
        /// `lockout.lockoutSeconds`: one second to one year.
        public static let lockoutSeconds: ClosedRange<Double> = 1...31_536_000
        /// `codeRequests.limit`.
        public static let codeRequestLimit: ClosedRange<Int> = 1...1000
        /// `codeRequests.windowSeconds`: one second to one week.
        public static let codeRequestWindowSeconds: ClosedRange<Double> = 1...604_800
        /// `passwordHashCost` (and a power of two): scrypt at 2^20 needs 1 GiB per hash.
        public static let passwordHashCost: ClosedRange<Int> = 2...(1 << 20)
    }

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
        accessTokenLifetime =
            try block.boundedNumber("accessTokenLifetimeSeconds", in: Limits.accessTokenLifetimeSeconds, unit: "seconds") ?? accessTokenLifetime
        refreshTokenLifetime =
            try block.boundedNumber("refreshTokenLifetimeSeconds", in: Limits.refreshTokenLifetimeSeconds, unit: "seconds") ?? refreshTokenLifetime
        signUpRequiresConfirmation = try block.optionalBool("signUpRequiresConfirmation") ?? true
        codeLifetime = try block.boundedNumber("codeLifetimeSeconds", in: Limits.codeLifetimeSeconds, unit: "seconds") ?? codeLifetime
        codeMaxAttempts = try block.boundedInt("codeMaxAttempts", in: Limits.codeMaxAttempts) ?? codeMaxAttempts
        passwordPolicy.minLength =
            try block.boundedInt("passwordPolicy.minLength", in: Limits.passwordMinLength, unit: "characters") ?? passwordPolicy.minLength
        passwordPolicy.requireLowercase = try block.optionalBool("passwordPolicy.requireLowercase") ?? passwordPolicy.requireLowercase
        passwordPolicy.requireUppercase = try block.optionalBool("passwordPolicy.requireUppercase") ?? passwordPolicy.requireUppercase
        passwordPolicy.requireNumbers = try block.optionalBool("passwordPolicy.requireNumbers") ?? passwordPolicy.requireNumbers
        passwordPolicy.requireSymbols = try block.optionalBool("passwordPolicy.requireSymbols") ?? passwordPolicy.requireSymbols
        maxFailedAttempts = try block.boundedInt("lockout.maxFailedAttempts", in: Limits.maxFailedAttempts) ?? maxFailedAttempts
        lockoutDuration = try block.boundedNumber("lockout.lockoutSeconds", in: Limits.lockoutSeconds, unit: "seconds") ?? lockoutDuration
        codeRequestLimit = try block.boundedInt("codeRequests.limit", in: Limits.codeRequestLimit) ?? codeRequestLimit
        codeRequestWindow =
            try block.boundedNumber("codeRequests.windowSeconds", in: Limits.codeRequestWindowSeconds, unit: "seconds") ?? codeRequestWindow
        preventUserExistenceErrors = try block.optionalBool("preventUserExistenceErrors") ?? preventUserExistenceErrors
        let powerOfTwo = ConfigurationValueError(
            keyPath: "passwordHashCost", expected: "a power of two from 2 to 1048576 (e.g. 32768)", found: block.value(at: "passwordHashCost"))
        do {
            if let cost = try block.boundedInt("passwordHashCost", in: Limits.passwordHashCost) {
                guard cost & (cost - 1) == 0, let unsigned = UInt64(exactly: cost) else { throw powerOfTwo }
                passwordHashCost = unsigned
            }
        } catch {
            throw powerOfTwo
        }
    }
}
