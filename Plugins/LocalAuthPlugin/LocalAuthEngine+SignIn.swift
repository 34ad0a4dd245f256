import Amplify
import AmplifyAuthCore
import Foundation

/// Sign-in on the local pool: the password, then the user's second factor when MFA is on for
/// them (the preferred method; the only one enabled; or a choice among several), answered with
/// `confirmSignIn`, as Cognito's `SOFTWARE_TOKEN_MFA`, `EMAIL_OTP`, `SMS_MFA` and
/// `SELECT_MFA_TYPE` challenges are in amplify-swift.
extension LocalAuthEngine {
    /// Checks the password; returns `.done` and the user, or the MFA step (or `.confirmSignUp`).
    /// - Throws: `AuthError.notAuthorized` for a wrong password or a locked account,
    ///   `AuthError.invalidState` if someone is signed in.
    func signIn(username: String?, password: String?, flow: AuthFlowType? = nil) async throws -> (AuthSignInResult, SignedInUser?) {
        let pool = try await prepare()
        let holder = try sessionHolder()
        try await requireNobody(in: holder)
        pendingSignIns.set(nil, for: holder)
        if case .userAuth(let preferred) = flow, let username {
            return try await choiceBasedSignIn(username: username, password: password, preferred: preferred, pool: pool, holder: holder)
        }
        guard let username, let password else {
            throw AuthError.validation("username", "The local user pool needs a username and a password.", "Pass both.")
        }
        let user = try await pool.authenticate(username: username, password: password)
        guard user.confirmed else { return (AuthSignInResult(nextStep: .confirmSignUp(nil)), nil) }
        return try await secondFactor(for: user, pool: pool, holder: holder)
    }

    /// Answers the step `signIn` returned: the MFA method chosen (`MFAType.challengeResponse`), or
    /// the code (TOTP, or the one sent by email or text). A wrong code may be tried again, up to
    /// the pool's `codeMaxAttempts` in all; then the sign-in is cancelled.
    /// - Throws: `AuthError.invalidState` with no sign-in waiting, `AuthError.validation` for a
    ///   wrong code or a method not offered, `AuthError.notAuthorized` once too many codes were wrong.
    func confirmSignIn(response: String) async throws -> (AuthSignInResult, SignedInUser?) {
        let pool = try await prepare()
        let holder = try sessionHolder()
        guard var challenge = pendingSignIns.challenge(for: holder) else {
            throw AuthError.invalidState("There is no sign-in challenge to answer.", "Call signIn first; confirmSignIn answers the step it returned.")
        }
        switch challenge.step {
        case .selectMFA(let offered):
            guard let chosen = MFAType.allCases.first(where: { $0.challengeResponse.caseInsensitiveCompare(response) == .orderedSame }),
                offered.contains(chosen)
            else {
                let names = offered.map(\.challengeResponse).sorted().joined(separator: ", ")
                throw AuthError.validation(
                    "challengeResponse", "'\(response)' is not one of the MFA methods offered (\(names)).",
                    "Answer with the challengeResponse of one of them.")
            }
            guard let user = try await pool.user(sub: challenge.sub) else { throw userGone(holder) }
            return try await ask(chosen, of: user, pool: pool, holder: holder)
        case .selectFirstFactor(let offered):
            guard let chosen = AuthFactorType(challengeResponse: response), offered.contains(chosen) else {
                let names = offered.map(\.challengeResponse).sorted().joined(separator: ", ")
                throw AuthError.validation(
                    "challengeResponse", "'\(response)' is not one of the first factors offered (\(names)).",
                    "Answer with the challengeResponse of one of them.")
            }
            guard let user = try await pool.user(sub: challenge.sub) else { throw userGone(holder) }
            return try await start(chosen, of: user, password: nil, pool: pool, holder: holder)
        case .password:
            // A wrong password is counted by the pool's lockout; the step waits for another try.
            let user = try await pool.authenticate(username: challenge.username, password: response)
            pendingSignIns.set(nil, for: holder)
            return try await secondFactor(for: user, pool: pool, holder: holder)
        case .code(let method):
            try await pool.requireNotLocked(sub: challenge.sub)
            do {
                switch method {
                case .totp: try await pool.checkTOTP(sub: challenge.sub, code: response)
                case .email, .sms: try await pool.consumeCode(sub: challenge.sub, purpose: .signIn, code: response, countsTowardLockout: false)
                }
            } catch let error as AuthError {
                guard case .validation = error else { throw error }
                // Counted toward the lockout too: restarting the sign-in gives no fresh guesses.
                try await pool.countFailedCode(sub: challenge.sub)
                challenge.failures += 1
                guard challenge.failures < codeMaxAttempts else {
                    pendingSignIns.set(nil, for: holder)
                    throw AuthError.notAuthorized(
                        "Too many wrong codes: the sign-in of '\(challenge.username)' was cancelled.", "Sign in again.", error)
                }
                pendingSignIns.set(challenge, for: holder)
                throw error
            }
            pendingSignIns.set(nil, for: holder)
            guard let user = try await pool.user(sub: challenge.sub), user.confirmed else { throw userGone(holder) }
            let (result, signedIn) = try await completeSignIn(user, pool: pool, holder: holder)
            return (result, signedIn)
        }
    }

    /// The user's MFA step after a right password (or an auto sign-in), or the finished sign-in.
    func secondFactor(for user: PoolUser, pool: LocalUserPool, holder: any AuthSessionHolding) async throws -> (AuthSignInResult, SignedInUser?) {
        if let device = try await rememberedDevice(of: user, pool: pool, holder: holder) {
            // A remembered device proves itself instead of an MFA code.
            let (result, signedIn) = try await completeSignIn(user, pool: pool, holder: holder, device: device)
            return (result, signedIn)
        }
        let preference = try await pool.mfaPreference(sub: user.sub)
        let enabled = preference.enabled ?? []
        if let preferred = preference.preferred, enabled.contains(preferred) {
            return try await ask(preferred, of: user, pool: pool, holder: holder)
        }
        if enabled.count == 1, let only = enabled.first {
            return try await ask(only, of: user, pool: pool, holder: holder)
        }
        if enabled.count > 1 {
            pendingSignIns.set(LocalSignInChallenge(sub: user.sub, username: user.username, step: .selectMFA(enabled)), for: holder)
            return (AuthSignInResult(nextStep: .continueSignInWithMFASelection(enabled)), nil)
        }
        let (result, signedIn) = try await completeSignIn(user, pool: pool, holder: holder)
        return (result, signedIn)
    }

    /// Asks for `method`'s code (sending it by email or text first) and waits for it.
    private func ask(_ method: MFAType, of user: PoolUser, pool: LocalUserPool, holder: any AuthSessionHolding) async throws -> (
        AuthSignInResult, SignedInUser?
    ) {
        let step: AuthSignInStep
        switch method {
        case .totp:
            step = .confirmSignInWithTOTPCode
        case .email:
            step = .confirmSignInWithOTP(try await pool.sendCode(to: user, purpose: .signIn, via: .email))
        case .sms:
            step = .confirmSignInWithSMSMFACode(try await pool.sendCode(to: user, purpose: .signIn, via: .phoneNumber), nil)
        }
        pendingSignIns.set(LocalSignInChallenge(sub: user.sub, username: user.username, step: .code(method)), for: holder)
        return (AuthSignInResult(nextStep: step), nil)
    }

    /// Tracks the sign-in's device, issues the user's tokens and makes them `holder`'s session,
    /// unless another sign-in won it meanwhile (this actor is re-entered across every await): then
    /// the new refresh token is revoked at once, never left valid, the device is forgotten, and the
    /// holder's `AuthError.invalidState` is thrown.
    func completeSignIn(
        _ user: PoolUser, pool: LocalUserPool, holder: any AuthSessionHolding, device remembered: String? = nil
    ) async throws -> (AuthSignInResult, SignedInUser) {
        let device: String
        if let remembered { device = remembered } else { device = try await pool.trackDevice(sub: user.sub, name: DeviceHost.name) }
        let tokens = try await pool.issueTokens(for: user, deviceKey: device)
        do {
            try await holder.begin(Self.storedSession(user, tokens))
        } catch {
            try? await pool.revoke(refreshToken: tokens.refreshToken)
            if remembered == nil { try? await pool.forgetDevice(sub: user.sub, key: device) }
            throw error
        }
        if remembered == nil, let keeper, holder === keeper {
            // The machine keeps the new device's secret, for when the user remembers it.
            let secret = try? await pool.issueDeviceSecret(sub: user.sub, key: device)
            if let secret {
                try? await keeper.saveDeviceSecret(
                    DeviceSecret(deviceKey: device, deviceGroupKey: "local", devicePassword: secret), usernames: [user.username])
            }
        }
        return (AuthSignInResult(nextStep: .done), SignedInUser(username: user.username, userId: user.sub))
    }

    /// The remembered device this machine's kept secret proves for `user`, for the process-wide
    /// session only (in a server context the device would be the server, not the user's).
    private func rememberedDevice(of user: PoolUser, pool: LocalUserPool, holder: any AuthSessionHolding) async throws -> String? {
        guard let keeper, holder === keeper, let secret = await keeper.deviceSecret(username: user.username) else { return nil }
        return try await pool.rememberedDevice(sub: user.sub, key: secret.deviceKey, secret: secret.devicePassword) ? secret.deviceKey : nil
    }

    /// The session holder this call signs in (the server context's, or the process-wide one).
    /// - Throws: `AuthError.configuration` before the pool is open, `AuthError.invalidState` in a
    ///   context of another pool.
    func sessionHolder() throws -> any AuthSessionHolding {
        guard let holder = try sessions() else {
            throw AuthError.configuration("The local user pool is not open.", "Call Amplify.configure() first.")
        }
        return holder
    }

    /// - Throws: `AuthError.invalidState` when `holder` has someone signed in.
    func requireNobody(in holder: any AuthSessionHolding) async throws {
        if let session = await holder.current {
            throw AuthError.invalidState("'\(session.username)' is already signed in.", "Sign out first.")
        }
    }

    private func userGone(_ holder: any AuthSessionHolding) -> AuthError {
        pendingSignIns.set(nil, for: holder)
        return AuthError.notAuthorized("The user signing in no longer exists or is no longer confirmed.", "Sign up again, or ask an administrator.")
    }
}
