import Amplify
import AmplifyAuthCore
import AmplifyCrypto
import Foundation

/// Attribute verification, TOTP, MFA preferences and auto sign-in on the local pool.
extension LocalAuthEngine: AuthExtendedAccountEngine {
    /// See `AuthCategoryExtendedBehavior/sendVerificationCode(forUserAttributeKey:options:)`.
    public func sendVerificationCode(for key: AuthUserAttributeKey) async throws -> AuthCodeDeliveryDetails {
        let (pool, user) = try await requireUser()
        return try await pool.sendVerificationCode(to: user, attribute: key)
    }

    /// See `AuthCategoryExtendedBehavior/confirm(userAttribute:confirmationCode:options:)`.
    public func confirmAttribute(_ key: AuthUserAttributeKey, code: String) async throws {
        let (pool, user) = try await requireUser()
        try await pool.confirmAttribute(sub: user.sub, attribute: key, code: code)
    }

    /// See `AuthCategoryExtendedBehavior/setUpTOTP()`.
    public func setUpTOTP() async throws -> TOTPSetupDetails {
        let (pool, user) = try await requireUser()
        let secret = try await pool.beginTOTPSetup(sub: user.sub)
        return TOTPSetupDetails(sharedSecret: Base32.encode(secret), username: user.username)
    }

    /// See `AuthCategoryExtendedBehavior/verifyTOTPSetup(code:options:)`.
    public func verifyTOTPSetup(code: String, friendlyDeviceName: String?) async throws {
        let (pool, user) = try await requireUser()
        try await pool.verifyTOTPSetup(sub: user.sub, code: code)
    }

    /// The signed-in user's MFA methods and preferred one.
    public func fetchMFAPreference() async throws -> UserMFAPreference {
        let (pool, user) = try await requireUser()
        return try await pool.mfaPreference(sub: user.sub)
    }

    /// Changes the signed-in user's MFA preferences.
    public func updateMFAPreference(_ changes: [MFAType: MFAPreference]) async throws {
        let (pool, user) = try await requireUser()
        try await pool.updateMFAPreference(sub: user.sub, changes)
    }

    /// Signs in `username`, confirmed since it signed up through this engine (the ticket
    /// `LocalAuthPlugin` keeps), without a password; a user with MFA on gets its step, as after
    /// `signIn`.
    /// - Throws: `AuthError.invalidState` if someone is signed in or the user is not confirmed.
    func autoSignIn(username: String) async throws -> (AuthSignInResult, SignedInUser?) {
        let pool = try await prepare()
        let holder = try sessionHolder()
        try await requireNobody(in: holder)
        let user = try await existingUser(username, pool)
        guard user.confirmed else {
            throw AuthError.invalidState("'\(username)' is not confirmed yet.", "Call confirmSignUp(for:confirmationCode:) first.")
        }
        pendingSignIns.set(nil, for: holder)
        return try await secondFactor(for: user, pool: pool, holder: holder)
    }
}
