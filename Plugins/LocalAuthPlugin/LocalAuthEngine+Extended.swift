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

    /// Lets the calling session holder's ``autoSignIn()`` sign `username` in, for the pool's code
    /// lifetime.
    /// - Throws: `AuthError.invalidState` in a server context of another pool.
    func keepAutoSignIn(username: String) throws {
        autoSignIns.set(username, for: try sessionHolder())
    }

    /// Signs in the user whose sign-up (through `LocalAuthPlugin`) this session holder confirmed,
    /// without a password; a user with MFA on gets its step, as after `signIn`.
    /// - Throws: `AuthError.invalidState` when none is waiting, someone is signed in, or the user
    ///   is not confirmed.
    func autoSignIn() async throws -> (AuthSignInResult, SignedInUser?) {
        let pool = try await prepare()
        let holder = try sessionHolder()
        guard let username = autoSignIns.challenge(for: holder) else {
            throw AuthError.invalidState("No confirmed sign-up is waiting to sign in.", "Sign up and confirm with this plugin first, or call signIn.")
        }
        try await requireNobody(in: holder)
        autoSignIns.set(nil, for: holder)
        let user = try await existingUser(username, pool)
        guard user.confirmed else {
            throw AuthError.invalidState("'\(username)' is not confirmed yet.", "Call confirmSignUp(for:confirmationCode:) first.")
        }
        pendingSignIns.set(nil, for: holder)
        return try await secondFactor(for: user, pool: pool, holder: holder)
    }
}
