import AWSCognitoAuthPlugin
import Amplify
import AmplifyCrypto
import AmplifyTestKit
import Foundation
import Testing

/// TOTP set-up and MFA preferences against moto; attribute verification and auto sign-in (which
/// moto lacks) against recorded exchanges.
@Suite("Cognito: TOTP, MFA preferences, attribute verification and auto sign-in")
struct CognitoExtendedTests {
    @Test(
        "setUpTOTP (AssociateSoftwareToken) gives the secret, verifyTOTPSetup (VerifySoftwareToken) takes its RFC 6238 code, TOTP can then be preferred (SetUserMFAPreference, read back with GetUser), and the next SRP sign-in is the SOFTWARE_TOKEN_MFA step that confirmSignIn answers"
    )
    func totpAndPreferences() async throws {
        try await MotoServer.with { moto in
            let fixture = try CognitoFixture(moto: moto, pool: ["name": "totp", "users": [alice]])
            let plugin = try fixture.plugin()
            _ = try await plugin.signIn(username: "alice", password: "Secr3t!pass", options: nil)
            #expect(try await plugin.fetchMFAPreference() == UserMFAPreference(enabled: nil, preferred: nil))
            let details = try await plugin.setUpTOTP()
            #expect(details.username == "alice")
            let secret = try #require(Base32.decode(details.sharedSecret))
            try await plugin.verifyTOTPSetup(code: TOTP(secret: secret).code(), options: nil)
            try await plugin.updateMFAPreference(totp: .preferred)
            #expect(try await plugin.fetchMFAPreference() == UserMFAPreference(enabled: [.totp], preferred: .totp))
            let names = await fixture.eventNames()
            #expect(names.contains(HubPayload.EventName.Auth.setUpTOTPAPI) && names.contains(HubPayload.EventName.Auth.verifyTOTPSetupAPI))

            // The next sign-in (SRP) meets the SOFTWARE_TOKEN_MFA challenge, answered with RespondToAuthChallenge.
            _ = await plugin.signOut(options: nil)
            let next = try await plugin.signIn(username: "alice", password: "Secr3t!pass", options: nil)
            #expect(next.nextStep == .confirmSignInWithTOTPCode)
            #expect(try await plugin.confirmSignIn(challengeResponse: TOTP(secret: secret).code(), options: nil).isSignedIn)
            #expect(try await plugin.getCurrentUser().username == "alice")
            try await fixture.close(plugin)
        }
    }

    @Test(
        "sendVerificationCode (GetUserAttributeVerificationCode), resendConfirmationCode and confirm(userAttribute:) (VerifyUserAttribute) send the access token and the attribute; a wrong code maps to codeMismatch"
    )
    func attributeVerification() async throws {
        let replay = try await RecordedExchangeTests.Replay("attribute_verification.json")
        _ = try await replay.plugin.signIn(username: "bo", password: "Passw0rd!x", options: nil)
        let sent = try await replay.plugin.sendVerificationCode(forUserAttributeKey: .email, options: nil)
        #expect(sent.destination == .email("b***@e***.com"))
        #expect(sent.attributeKey == .email)
        _ = try await replay.plugin.resendConfirmationCode(forUserAttributeKey: .email, options: nil)
        await #expect { try await replay.plugin.confirm(userAttribute: .email, confirmationCode: "000000", options: nil) } throws: { error in
            guard case AuthError.service(_, _, let underlying as AWSCognitoAuthError) = error else { return false }
            return underlying == .codeMismatch
        }
        try await replay.plugin.confirm(userAttribute: .email, confirmationCode: "123456", options: nil)
        #expect(
            await replay.eventNames().suffix(4) == [
                HubPayload.EventName.Auth.sendUserAttributeVerificationCodeAPI, HubPayload.EventName.Auth.attributeResendConfirmationCodeAPI,
                HubPayload.EventName.Auth.confirmUserAttributesAPI, HubPayload.EventName.Auth.confirmUserAttributesAPI,
            ])
        let auto = await #expect(throws: AuthError.self) { try await replay.plugin.autoSignIn() }
        guard case .invalidState? = auto else {
            Issue.record("\(String(describing: auto))")
            return
        }
        try await replay.close()
    }

    @Test(
        "autoSignIn: SignUp's Session goes with ConfirmSignUp (again after a wrong code), whose Session makes .completeAutoSignIn; autoSignIn() sends it with InitiateAuth USER_AUTH and signs in, once, and only in the session that confirmed"
    )
    func autoSignIn() async throws {
        let replay = try await RecordedExchangeTests.Replay("auto_sign_in.json")
        let signedUp = try await replay.plugin.signUp(
            username: "bo", password: "Passw0rd!x", options: .init(userAttributes: [AuthUserAttribute(.email, value: "bo@example.com")]))
        guard case .confirmUser = signedUp.nextStep else {
            Issue.record("\(signedUp.nextStep)")
            return
        }
        // A wrong code keeps SignUp's session for the retry.
        let wrong = await authError { _ = try await replay.plugin.confirmSignUp(for: "bo", confirmationCode: "000000", options: nil) }
        guard case .service(_, _, let mismatch as AWSCognitoAuthError)? = wrong, mismatch == .codeMismatch else {
            Issue.record("\(String(describing: wrong))")
            return
        }
        let confirmed = try await replay.plugin.confirmSignUp(for: "bo", confirmationCode: "123456", options: nil)
        #expect(confirmed.nextStep == .completeAutoSignIn("fixture-confirmed-session"))
        #expect(confirmed.isSignUpComplete)

        // Another session (a server context's) has no confirmed sign-up: nothing is sent.
        let context = try replay.plugin.emptyServerContext()
        let elsewhere = await context.run { await authError { _ = try await replay.plugin.autoSignIn() } }
        guard case .invalidState? = elsewhere else {
            Issue.record("\(String(describing: elsewhere))")
            return
        }

        #expect(try await replay.plugin.autoSignIn().isSignedIn)
        #expect(try await replay.plugin.getCurrentUser().username == "bo")
        #expect(
            await replay.eventNames().suffix(3) == [
                HubPayload.EventName.Auth.autoSignInAPI, HubPayload.EventName.Auth.autoSignInAPI, HubPayload.EventName.Auth.signedIn,
            ])
        _ = await replay.plugin.signOut(options: nil)
        let again = await authError { _ = try await replay.plugin.autoSignIn() }
        guard case .invalidState? = again else {
            Issue.record("\(String(describing: again))")
            return
        }
        try await replay.close()
    }
}
