import Amplify
import AmplifyCrypto
import AmplifyTestKit
import Foundation
import LocalAuthPlugin
import LocalAuthTestSupport
import Testing

/// Sign-in options asking for the choice-based flow.
private func userAuth(_ preferred: AuthFactorType? = nil) -> AuthSignInRequest.Options {
    AuthSignInRequest.Options(pluginOptions: AuthFlowType.userAuth(preferredFirstFactor: preferred))
}

/// Signs `username` up and in, then out: a confirmed user with an email address.
private func confirmedUser(_ plugin: LocalAuthPlugin, _ fixture: LocalPoolFixture, _ username: String) async throws {
    try await signUpAndIn(plugin, fixture, username)
    _ = await plugin.signOut(options: nil)
}

@Suite("Local auth: choice-based sign-in (USER_AUTH: password, email or SMS one-time codes)")
struct PasswordlessSignInTests {
    @Test(
        "userAuth(preferredFirstFactor: .emailOTP) sends a code through the outbox (.confirmSignInWithOTP), and the code alone signs in; .smsOTP sends one to the phone number"
    )
    func emailOneTimeCode() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        try await confirmedUser(plugin, fixture, "pia")
        let result = try await plugin.signIn(username: "pia", password: nil, options: userAuth(.emailOTP))
        #expect(result.nextStep == .confirmSignInWithOTP(AuthCodeDeliveryDetails(destination: .email("p***@e***.com"), attributeKey: .email)))
        let message = try #require(try await plugin.outbox(for: "pia").last)
        #expect(message.purpose == .signIn)
        #expect(try await plugin.confirmSignIn(challengeResponse: message.code, options: nil).isSignedIn)
        #expect(try await plugin.getCurrentUser().username == "pia")
        #expect(await fixture.eventNames().suffix(2) == ["Auth.confirmSignInAPI", "Auth.signedIn"])

        // With a phone number, a text message code too (.smsOTP).
        _ = try await plugin.update(userAttribute: AuthUserAttribute(.phoneNumber, value: "+15555550142"), options: nil)
        _ = await plugin.signOut(options: nil)
        let sms = try await plugin.signIn(username: "pia", password: nil, options: userAuth(.smsOTP))
        #expect(sms.nextStep == .confirmSignInWithOTP(AuthCodeDeliveryDetails(destination: .sms("********0142"), attributeKey: .phoneNumber)))
        let text = try #require(try await plugin.outbox(for: "pia").last)
        #expect(text.destination == "+15555550142")
        #expect(try await plugin.confirmSignIn(challengeResponse: text.code, options: nil).isSignedIn)
        try await fixture.close(plugin)
    }

    @Test(
        "without a preferred factor the user chooses (.continueSignInWithFirstFactorSelection); a factor not offered is refused; PASSWORD asks for it (.confirmSignInWithPassword), a wrong one may be retried"
    )
    func chooseThePassword() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        try await confirmedUser(plugin, fixture, "rex")
        let result = try await plugin.signIn(username: "rex", password: nil, options: userAuth())
        #expect(result.nextStep == .continueSignInWithFirstFactorSelection([.password, .passwordSRP, .emailOTP]))
        let sms = await authError { _ = try await plugin.confirmSignIn(challengeResponse: AuthFactorType.smsOTP.challengeResponse, options: nil) }
        #expect(sms?.errorDescription == "'SMS_OTP' is not one of the first factors offered (EMAIL_OTP, PASSWORD, PASSWORD_SRP).")
        let chosen = try await plugin.confirmSignIn(challengeResponse: AuthFactorType.password.challengeResponse, options: nil)
        #expect(chosen.nextStep == .confirmSignInWithPassword)
        let wrong = await authError { _ = try await plugin.confirmSignIn(challengeResponse: "Wr0ngPassword", options: nil) }
        guard case .notAuthorized? = wrong else {
            Issue.record("\(String(describing: wrong))")
            return
        }
        #expect(try await plugin.confirmSignIn(challengeResponse: "Passw0rd!", options: nil).isSignedIn)
        try await fixture.close(plugin)
    }

    @Test("the password as first factor is followed by the user's MFA (TOTP); an unknown user is refused as a wrong password would be")
    func passwordThenMFA() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        try await signUpAndIn(plugin, fixture, "sol")
        let secret = try #require(Base32.decode(try await plugin.setUpTOTP().sharedSecret))
        try await plugin.verifyTOTPSetup(code: TOTP(secret: secret).code(), options: nil)
        try await plugin.updateMFAPreference(totp: .preferred)
        _ = await plugin.signOut(options: nil)
        let result = try await plugin.signIn(username: "sol", password: "Passw0rd!", options: userAuth(.password))
        #expect(result.nextStep == .confirmSignInWithTOTPCode)
        #expect(try await plugin.confirmSignIn(challengeResponse: nextCode(TOTP(secret: secret)), options: nil).isSignedIn)
        _ = await plugin.signOut(options: nil)
        let unknown = await authError { _ = try await plugin.signIn(username: "nobody", password: nil, options: userAuth(.emailOTP)) }
        #expect(unknown?.errorDescription == "Incorrect username or password.")
        try await fixture.close(plugin)
    }

    @Test("wrong one-time codes count toward the account's lockout: once locked, a code is refused and a new passwordless sign-in sends none")
    func wrongCodesLockTheAccount() async throws {
        let fixture = try LocalPoolFixture(["lockout": ["maxFailedAttempts": 2, "lockoutSeconds": 300]])
        let plugin = try fixture.plugin()
        try await confirmedUser(plugin, fixture, "tom")
        _ = try await plugin.signIn(username: "tom", password: nil, options: userAuth(.emailOTP))
        let code = try #require(try await plugin.outbox(for: "tom").last?.code)
        let wrongCode = code == "000000" ? "111111" : "000000"
        for _ in 0..<2 {
            let wrong = await authError { _ = try await plugin.confirmSignIn(challengeResponse: wrongCode, options: nil) }
            guard case .validation? = wrong else {
                Issue.record("\(String(describing: wrong))")
                return
            }
        }
        let locked = await authError { _ = try await plugin.confirmSignIn(challengeResponse: code, options: nil) }
        #expect(
            locked?.errorDescription.hasPrefix("Too many failed sign-in attempts; the account is locked") == true, "\(String(describing: locked))")
        let sent = try await plugin.outbox(for: "tom").count
        let again = await authError { _ = try await plugin.signIn(username: "tom", password: nil, options: userAuth(.emailOTP)) }
        guard case .notAuthorized? = again else {
            Issue.record("\(String(describing: again))")
            return
        }
        #expect(try await plugin.outbox(for: "tom").count == sent)
        try await fixture.close(plugin)
    }
}
