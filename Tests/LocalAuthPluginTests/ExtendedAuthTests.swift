import Amplify
import AmplifyCrypto
import AmplifyTestKit
import Foundation
import LocalAuthPlugin
import LocalAuthTestSupport
import Testing

@Suite("Local auth: auto sign-in, attribute verification, TOTP and MFA preferences")
struct ExtendedAuthTests {
    @Test("a sign-up confirmed through the plugin completes with .completeAutoSignIn, and autoSignIn() signs the user in once")
    func autoSignIn() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        _ = try await plugin.signUp(
            username: "ana", password: "Passw0rd!", options: .init(userAttributes: [AuthUserAttribute(.email, value: "ana@example.com")]))
        let confirmed = try await plugin.confirmSignUp(for: "ana", confirmationCode: try await fixture.latestCode(plugin, for: "ana"), options: nil)
        #expect(confirmed.nextStep == .completeAutoSignIn("ana"))
        #expect(confirmed.isSignUpComplete)
        #expect(try await plugin.autoSignIn().isSignedIn)
        #expect(try await plugin.getCurrentUser().username == "ana")
        #expect(await fixture.eventNames().suffix(2) == ["Auth.autoSignInAPI", "Auth.signedIn"])
        _ = await plugin.signOut(options: nil)
        let again = await authError { _ = try await plugin.autoSignIn() }
        guard case .invalidState? = again else {
            Issue.record("\(String(describing: again))")
            return
        }
        try await fixture.close(plugin)
    }

    @Test(
        "autoSignIn() belongs to the session that confirmed the sign-up: a server context cannot take the process-wide one, and one confirmed in a context signs in there"
    )
    func autoSignInStaysInItsSession() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        for name in ["ava", "ivo"] {
            _ = try await plugin.signUp(
                username: name, password: "Passw0rd!", options: .init(userAttributes: [AuthUserAttribute(.email, value: "\(name)@example.com")]))
        }
        _ = try await plugin.confirmSignUp(for: "ava", confirmationCode: try await fixture.latestCode(plugin, for: "ava"), options: nil)
        let context = try plugin.emptyServerContext()
        let taken = await context.run { await authError { _ = try await plugin.autoSignIn() } }
        guard case .invalidState? = taken else {
            Issue.record("\(String(describing: taken))")
            return
        }
        let code = try await fixture.latestCode(plugin, for: "ivo")
        let inContext = try await context.run {
            _ = try await plugin.confirmSignUp(for: "ivo", confirmationCode: code, options: nil)
            return try await plugin.autoSignIn()
        }
        #expect(inContext.isSignedIn)
        #expect(try await context.run { try await plugin.getCurrentUser().username } == "ivo")
        #expect(try await plugin.autoSignIn().isSignedIn)
        #expect(try await plugin.getCurrentUser().username == "ava")
        try await fixture.close(plugin)
    }

    @Test("sendVerificationCode sends a code to the attribute; confirm(userAttribute:) marks it verified; a resent code replaces the first")
    func attributeVerification() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        _ = try await signUpAndIn(plugin, fixture, "ben")
        let sent = try await plugin.sendVerificationCode(forUserAttributeKey: .email, options: nil)
        #expect(sent.destination == .email("b***@e***.com"))
        #expect(sent.attributeKey == .email)
        let first = try await fixture.latestCode(plugin, for: "ben")
        _ = try await plugin.resendConfirmationCode(forUserAttributeKey: .email, options: nil)
        let second = try await fixture.latestCode(plugin, for: "ben")
        if first != second {
            let stale = await authError { try await plugin.confirm(userAttribute: .email, confirmationCode: first, options: nil) }
            guard case .validation? = stale else {
                Issue.record("\(String(describing: stale))")
                return
            }
        }
        try await plugin.confirm(userAttribute: .email, confirmationCode: second, options: nil)
        let attributes = try await plugin.fetchUserAttributes(options: nil)
        #expect(attributes.contains(AuthUserAttribute(AuthUserAttributeKey(rawValue: "email_verified"), value: "true")))
        let phone = await authError { _ = try await plugin.sendVerificationCode(forUserAttributeKey: .phoneNumber, options: nil) }
        #expect(phone?.errorDescription == "'ben' has no phone_number to verify.")
        let name = await authError { _ = try await plugin.sendVerificationCode(forUserAttributeKey: .name, options: nil) }
        guard case .validation? = name else {
            Issue.record("\(String(describing: name))")
            return
        }
        try await fixture.close(plugin)
    }

    @Test(
        "setUpTOTP gives a base 32 secret and otpauth URI; verifyTOTPSetup takes the RFC 6238 code of now and refuses a wrong one; then TOTP can be preferred"
    )
    func totpAndPreferences() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        _ = try await signUpAndIn(plugin, fixture, "cy")
        #expect(try await plugin.fetchMFAPreference() == UserMFAPreference(enabled: nil, preferred: nil))
        let early = await authError { try await plugin.updateMFAPreference(totp: .enabled) }
        guard case .invalidState? = early else {
            Issue.record("\(String(describing: early))")
            return
        }
        let details = try await plugin.setUpTOTP()
        #expect(details.username == "cy")
        let secret = try #require(Base32.decode(details.sharedSecret))
        #expect(secret.count == 20)
        let uri = try details.getSetupURI(appName: "Notes")
        #expect(uri.absoluteString == "otpauth://totp/Notes:cy?secret=\(details.sharedSecret)&issuer=Notes")
        let wrong = await authError {
            try await plugin.verifyTOTPSetup(code: "000000" == TOTP(secret: secret).code() ? "111111" : "000000", options: nil)
        }
        guard case .validation? = wrong else {
            Issue.record("\(String(describing: wrong))")
            return
        }
        try await plugin.verifyTOTPSetup(code: TOTP(secret: secret).code(), options: nil)
        try await plugin.updateMFAPreference(totp: .preferred, email: .enabled)
        #expect(try await plugin.fetchMFAPreference() == UserMFAPreference(enabled: [.totp, .email], preferred: .totp))
        try await plugin.updateMFAPreference(totp: .notPreferred, email: .disabled)
        #expect(try await plugin.fetchMFAPreference() == UserMFAPreference(enabled: [.totp], preferred: nil))
        let sms = await authError { try await plugin.updateMFAPreference(sms: .enabled) }
        #expect(sms?.errorDescription == "SMS MFA needs a phone_number attribute.")
        let two = await authError { try await plugin.updateMFAPreference(totp: .preferred, email: .preferred) }
        guard case .validation? = two else {
            Issue.record("\(String(describing: two))")
            return
        }
        #expect(await fixture.eventNames().contains("Auth.verifyTOTPSetupAPI"))
        try await fixture.close(plugin)
    }

    @Test("the extended calls need a signed-in user")
    func signedOut() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        let error = await authError { _ = try await plugin.setUpTOTP() }
        guard case .signedOut? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        try await fixture.close(plugin)
    }
}
