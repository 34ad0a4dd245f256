import Foundation

/// Why a code is sent.
public enum CodePurpose: String, Sendable, Codable {
    /// Confirming a new account.
    case signUp
    /// Resetting a forgotten password.
    case resetPassword
    /// Verifying the email attribute.
    case verifyEmail
    /// Verifying the phone number attribute.
    case verifyPhoneNumber
    /// Signing in: the second factor by email or text message (email / SMS MFA).
    case signIn
}

/// A code on its way to a user: what a delivery sends.
public struct CodeMessage: Sendable, Equatable {
    /// The user it is for.
    public let username: String
    /// Where it goes (the user's email address, else their phone number, else their username).
    public let destination: String
    /// Why.
    public let purpose: CodePurpose
    /// The code itself.
    public let code: String
    /// When it was issued.
    public let createdAt: Date
}

/// Sends confirmation and reset codes to users. A server plugs its own in (an email sender) with
/// `LocalAuthPlugin(delivery:)`; the default keeps them in the pool's outbox, which
/// `amplify auth outbox` prints, so a person can finish sign-up locally.
public protocol CodeDelivery: Sendable {
    /// Delivers `message`.
    /// - Throws: anything; the call that needed the code fails with it.
    func deliver(_ message: CodeMessage) async throws
}
