import Amplify
import AmplifyAuthCore
import Foundation

/// Choice-based sign-in (`AuthFlowType.userAuth`) on the local pool, as Cognito's `USER_AUTH`:
/// the first factor is the password, or a one-time code by email or text message (through the
/// plugin's delivery, the outbox by default), chosen by `preferredFirstFactor` or at
/// `.continueSignInWithFirstFactorSelection`. A one-time code signs in on its own; a password is
/// followed by the user's MFA, as after `signIn`.
extension LocalAuthEngine {
    /// Starts a `USER_AUTH` sign-in of `username`.
    /// - Throws: `AuthError.notAuthorized` for an unknown user (as for a wrong password).
    func choiceBasedSignIn(
        username: String, password: String?, preferred: AuthFactorType?, pool: LocalUserPool, holder: any AuthSessionHolding
    ) async throws -> (AuthSignInResult, SignedInUser?) {
        guard let user = try await pool.user(named: username) else {
            throw AuthError.notAuthorized("Incorrect username or password.", "Check the username and password.")
        }
        guard user.confirmed else { return (AuthSignInResult(nextStep: .confirmSignUp(nil)), nil) }
        try await pool.requireNotLocked(sub: user.sub)
        let available = try await firstFactors(of: user, pool: pool)
        if let preferred, available.contains(preferred) {
            return try await start(preferred, of: user, password: password, pool: pool, holder: holder)
        }
        pendingSignIns.set(LocalSignInChallenge(sub: user.sub, username: user.username, step: .selectFirstFactor(available)), for: holder)
        return (AuthSignInResult(nextStep: .continueSignInWithFirstFactorSelection(available)), nil)
    }

    /// The first factors the user can use: the password always; an email code with an email
    /// address; a text message code with a phone number.
    func firstFactors(of user: PoolUser, pool: LocalUserPool) async throws -> AvailableAuthFactorTypes {
        let attributes = try await pool.attributes(sub: user.sub)
        var factors: AvailableAuthFactorTypes = [.password, .passwordSRP]
        if attributes.contains(where: { $0.key == .email && !$0.value.isEmpty }) { factors.insert(.emailOTP) }
        if attributes.contains(where: { $0.key == .phoneNumber && !$0.value.isEmpty }) { factors.insert(.smsOTP) }
        return factors
    }

    /// Begins the first factor `factor`: checks the password given (or asks for it), or sends
    /// the one-time code and waits for it.
    func start(
        _ factor: AuthFactorType, of user: PoolUser, password: String?, pool: LocalUserPool, holder: any AuthSessionHolding
    ) async throws -> (AuthSignInResult, SignedInUser?) {
        switch factor {
        case .password, .passwordSRP:
            guard let password, !password.isEmpty else {
                pendingSignIns.set(LocalSignInChallenge(sub: user.sub, username: user.username, step: .password), for: holder)
                return (AuthSignInResult(nextStep: .confirmSignInWithPassword), nil)
            }
            let checked = try await pool.authenticate(username: user.username, password: password)
            return try await secondFactor(for: checked, pool: pool, holder: holder)
        case .emailOTP:
            let details = try await pool.sendCode(to: user, purpose: .signIn, via: .email)
            pendingSignIns.set(LocalSignInChallenge(sub: user.sub, username: user.username, step: .code(.email)), for: holder)
            return (AuthSignInResult(nextStep: .confirmSignInWithOTP(details)), nil)
        case .smsOTP:
            let details = try await pool.sendCode(to: user, purpose: .signIn, via: .phoneNumber)
            pendingSignIns.set(LocalSignInChallenge(sub: user.sub, username: user.username, step: .code(.sms)), for: holder)
            return (AuthSignInResult(nextStep: .confirmSignInWithOTP(details)), nil)
        }
    }
}
