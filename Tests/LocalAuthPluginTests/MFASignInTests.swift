import Amplify
import AmplifyCrypto
import AmplifyTestKit
import Foundation
import LocalAuthPlugin
import LocalAuthTestSupport
import Testing

/// Sets up TOTP for the signed-in user with the code of now; returns the authenticator and that code.
private func setUpTOTP(_ plugin: LocalAuthPlugin) async throws -> (TOTP, String) {
    let secret = try #require(Base32.decode(try await plugin.setUpTOTP().sharedSecret))
    let totp = TOTP(secret: secret)
    let code = totp.code()
    try await plugin.verifyTOTPSetup(code: code, options: nil)
    return (totp, code)
}

/// The code of the next time step: later than any code used so far (each step's code is accepted
/// once), and within the step of drift the pool allows, however slowly the test runs up to it.
func nextCode(_ totp: TOTP) -> String { totp.code(at: Date().addingTimeInterval(30)) }

/// A code that is not `right`.
private func wrong(_ right: String) -> String { right == "000000" ? "111111" : "000000" }

@Suite("Local auth: sign-in with MFA (TOTP, email and SMS codes, method selection)")
struct MFASignInTests {
    @Test(
        "a user who prefers TOTP gets .confirmSignInWithTOTPCode; a wrong code is refused (validation) and may be retried; the right one signs in and dispatches Auth.signedIn"
    )
    func totpSignIn() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        try await signUpAndIn(plugin, fixture, "tia")
        let (totp, _) = try await setUpTOTP(plugin)
        try await plugin.updateMFAPreference(totp: .preferred)
        _ = await plugin.signOut(options: nil)

        let first = try await plugin.signIn(username: "tia", password: "Passw0rd!", options: nil)
        #expect(first.nextStep == .confirmSignInWithTOTPCode)
        #expect(!first.isSignedIn)
        #expect(try await plugin.fetchAuthSession(options: nil).isSignedIn == false)
        let code = nextCode(totp)
        let refused = await authError { _ = try await plugin.confirmSignIn(challengeResponse: wrong(code), options: nil) }
        #expect(refused?.errorDescription == "The TOTP code is wrong or was already used.")
        guard case .validation? = refused else {
            Issue.record("\(String(describing: refused))")
            return
        }
        #expect(try await plugin.confirmSignIn(challengeResponse: code, options: nil).isSignedIn)
        #expect(try await plugin.getCurrentUser().username == "tia")
        let names = await fixture.eventNames()
        #expect(
            Array(names.suffix(5)) == ["Auth.signInAPI", "Auth.fetchSessionAPI", "Auth.confirmSignInAPI", "Auth.confirmSignInAPI", "Auth.signedIn"])
        #expect(names.filter { $0 == "Auth.signedIn" }.count == 2)
        try await fixture.close(plugin)
    }

    @Test(
        "a TOTP code already used (the one that verified the set-up, or one that signed in) is refused at the next sign-in; a later step's code is accepted"
    )
    func totpCodeUsedOnce() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        try await signUpAndIn(plugin, fixture, "uma")
        let (totp, verifying) = try await setUpTOTP(plugin)
        try await plugin.updateMFAPreference(totp: .enabled)
        _ = await plugin.signOut(options: nil)
        #expect(try await plugin.signIn(username: "uma", password: "Passw0rd!", options: nil).nextStep == .confirmSignInWithTOTPCode)
        let used = await authError { _ = try await plugin.confirmSignIn(challengeResponse: verifying, options: nil) }
        guard case .validation? = used else {
            Issue.record("\(String(describing: used))")
            return
        }
        let code = nextCode(totp)
        #expect(try await plugin.confirmSignIn(challengeResponse: code, options: nil).isSignedIn)
        _ = await plugin.signOut(options: nil)
        _ = try await plugin.signIn(username: "uma", password: "Passw0rd!", options: nil)
        let again = await authError { _ = try await plugin.confirmSignIn(challengeResponse: code, options: nil) }
        guard case .validation? = again else {
            Issue.record("\(String(describing: again))")
            return
        }
        try await fixture.close(plugin)
    }

    @Test(
        "email MFA: signIn sends a code through the outbox and returns .confirmSignInWithOTP with the masked address; confirmSignIn with it signs in")
    func emailSignIn() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        try await signUpAndIn(plugin, fixture, "eli")
        try await plugin.updateMFAPreference(email: .enabled)
        _ = await plugin.signOut(options: nil)

        let result = try await plugin.signIn(username: "eli", password: "Passw0rd!", options: nil)
        #expect(result.nextStep == .confirmSignInWithOTP(AuthCodeDeliveryDetails(destination: .email("e***@e***.com"), attributeKey: .email)))
        let message = try #require(try await plugin.outbox(for: "eli").last)
        #expect(message.purpose == .signIn)
        #expect(message.destination == "eli@example.com")
        let refused = await authError { _ = try await plugin.confirmSignIn(challengeResponse: wrong(message.code), options: nil) }
        guard case .validation? = refused else {
            Issue.record("\(String(describing: refused))")
            return
        }
        #expect(try await plugin.confirmSignIn(challengeResponse: message.code, options: nil).isSignedIn)
        let reused = await authError { _ = try await plugin.confirmSignIn(challengeResponse: message.code, options: nil) }
        guard case .invalidState? = reused else {
            Issue.record("\(String(describing: reused))")
            return
        }
        try await fixture.close(plugin)
    }

    @Test(
        "several methods on and none preferred: .continueSignInWithMFASelection offers them; a method not offered is refused; choosing SMS_MFA sends a code to the phone (.confirmSignInWithSMSMFACode)"
    )
    func methodSelection() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        try await signUpAndIn(plugin, fixture, "max")
        _ = try await plugin.update(userAttribute: AuthUserAttribute(.phoneNumber, value: "+15555550123"), options: nil)
        try await plugin.updateMFAPreference(sms: .enabled, email: .enabled)
        _ = await plugin.signOut(options: nil)

        let result = try await plugin.signIn(username: "max", password: "Passw0rd!", options: nil)
        #expect(result.nextStep == .continueSignInWithMFASelection([.sms, .email]))
        let notOffered = await authError { _ = try await plugin.confirmSignIn(challengeResponse: MFAType.totp.challengeResponse, options: nil) }
        #expect(notOffered?.errorDescription == "'SOFTWARE_TOKEN_MFA' is not one of the MFA methods offered (EMAIL_OTP, SMS_MFA).")
        let chosen = try await plugin.confirmSignIn(challengeResponse: MFAType.sms.challengeResponse, options: nil)
        #expect(
            chosen.nextStep
                == .confirmSignInWithSMSMFACode(AuthCodeDeliveryDetails(destination: .sms("********0123"), attributeKey: .phoneNumber), nil))
        let message = try #require(try await plugin.outbox(for: "max").last)
        #expect(message.destination == "+15555550123")
        #expect(try await plugin.confirmSignIn(challengeResponse: message.code, options: nil).isSignedIn)
        try await fixture.close(plugin)
    }

    @Test("after codeMaxAttempts wrong codes the sign-in is cancelled (notAuthorized), and there is then nothing to answer")
    func tooManyWrongCodes() async throws {
        let fixture = try LocalPoolFixture(["codeMaxAttempts": 2])
        let plugin = try fixture.plugin()
        try await signUpAndIn(plugin, fixture, "ned")
        let (totp, _) = try await setUpTOTP(plugin)
        try await plugin.updateMFAPreference(totp: .preferred)
        _ = await plugin.signOut(options: nil)
        _ = try await plugin.signIn(username: "ned", password: "Passw0rd!", options: nil)
        let code = nextCode(totp)
        let first = await authError { _ = try await plugin.confirmSignIn(challengeResponse: wrong(code), options: nil) }
        guard case .validation? = first else {
            Issue.record("\(String(describing: first))")
            return
        }
        let second = await authError { _ = try await plugin.confirmSignIn(challengeResponse: wrong(code), options: nil) }
        #expect(second?.errorDescription == "Too many wrong codes: the sign-in of 'ned' was cancelled.")
        guard case .notAuthorized? = second else {
            Issue.record("\(String(describing: second))")
            return
        }
        let after = await authError { _ = try await plugin.confirmSignIn(challengeResponse: code, options: nil) }
        guard case .invalidState? = after else {
            Issue.record("\(String(describing: after))")
            return
        }
        #expect(try await plugin.fetchAuthSession(options: nil).isSignedIn == false)
        try await fixture.close(plugin)
    }

    @Test("a challenge waits for the session that started it: a server context's confirmSignIn cannot answer the process-wide sign-in's")
    func challengeBelongsToItsSession() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        try await signUpAndIn(plugin, fixture, "ora")
        try await plugin.updateMFAPreference(email: .preferred)
        _ = await plugin.signOut(options: nil)
        _ = try await plugin.signIn(username: "ora", password: "Passw0rd!", options: nil)
        let code = try #require(try await plugin.outbox(for: "ora").last?.code)
        let context = try plugin.emptyServerContext()
        let other = await context.run { await authError { _ = try await plugin.confirmSignIn(challengeResponse: code, options: nil) } }
        guard case .invalidState? = other else {
            Issue.record("\(String(describing: other))")
            return
        }
        #expect(try await plugin.confirmSignIn(challengeResponse: code, options: nil).isSignedIn)
        try await fixture.close(plugin)
    }
}
