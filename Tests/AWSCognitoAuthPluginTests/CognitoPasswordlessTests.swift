import AWSCognitoAuthPlugin
import Amplify
import AmplifyTestKit
import Foundation
import Testing

/// Choice-based sign-in (`USER_AUTH`) against a recorded exchange (moto has none; see Fixtures/README.md).
@Suite("Cognito: choice-based sign-in (USER_AUTH, SELECT_CHALLENGE, EMAIL_OTP)")
struct CognitoPasswordlessTests {
    static func userAuth(_ preferred: AuthFactorType? = nil) -> AuthSignInRequest.Options {
        AuthSignInRequest.Options(pluginOptions: AWSAuthSignInOptions(authFlowType: .userAuth(preferredFirstFactor: preferred)))
    }

    @Test(
        "PREFERRED_CHALLENGE EMAIL_OTP is .confirmSignInWithOTP; a wrong code is codeMismatch and the right one (EMAIL_OTP_CODE) signs in; SELECT_CHALLENGE is .continueSignInWithFirstFactorSelection, answered with PASSWORD and the password, or EMAIL_OTP and its code; SMS_OTP (SMS_OTP_CODE)"
    )
    func choiceBasedSignIn() async throws {
        let replay = try await RecordedExchangeTests.Replay("passwordless.json")
        let plugin = replay.plugin
        let otp = try await plugin.signIn(username: "bo", password: nil, options: Self.userAuth(.emailOTP))
        #expect(otp.nextStep == .confirmSignInWithOTP(AuthCodeDeliveryDetails(destination: .email("b***@e***.com"))))
        let wrong = await authError { _ = try await plugin.confirmSignIn(challengeResponse: "000000", options: nil) }
        guard case .service(_, _, let underlying as AWSCognitoAuthError)? = wrong, underlying == .codeMismatch else {
            Issue.record("\(String(describing: wrong))")
            return
        }
        #expect(try await plugin.confirmSignIn(challengeResponse: "123456", options: nil).isSignedIn)
        _ = await plugin.signOut(options: nil)

        let select = try await plugin.signIn(username: "bo", password: nil, options: Self.userAuth())
        #expect(select.nextStep == .continueSignInWithFirstFactorSelection([.password, .passwordSRP, .emailOTP]))
        let notOffered = await authError { _ = try await plugin.confirmSignIn(challengeResponse: "SMS_OTP", options: nil) }
        guard case .validation? = notOffered else {
            Issue.record("\(String(describing: notOffered))")
            return
        }
        #expect(
            try await plugin.confirmSignIn(challengeResponse: AuthFactorType.password.challengeResponse, options: nil).nextStep
                == .confirmSignInWithPassword)
        #expect(try await plugin.confirmSignIn(challengeResponse: "Passw0rd!x", options: nil).isSignedIn)
        _ = await plugin.signOut(options: nil)

        _ = try await plugin.signIn(username: "bo", password: nil, options: Self.userAuth())
        let code = try await plugin.confirmSignIn(challengeResponse: AuthFactorType.emailOTP.challengeResponse, options: nil)
        #expect(code.nextStep == .confirmSignInWithOTP(AuthCodeDeliveryDetails(destination: .email("b***@e***.com"))))
        #expect(try await plugin.confirmSignIn(challengeResponse: "654321", options: nil).isSignedIn)
        _ = await plugin.signOut(options: nil)

        let sms = try await plugin.signIn(username: "bo", password: nil, options: Self.userAuth(.smsOTP))
        #expect(sms.nextStep == .confirmSignInWithOTP(AuthCodeDeliveryDetails(destination: .sms("+*******0100"))))
        #expect(try await plugin.confirmSignIn(challengeResponse: "246810", options: nil).isSignedIn)
        #expect(await replay.eventNames().filter { $0 == HubPayload.EventName.Auth.signedIn }.count == 4)
        try await replay.close()
    }

    @Test(
        "PASSWORD_SRP, preferred (SRP_A with USER_AUTH) or chosen at SELECT_CHALLENGE (after .confirmSignInWithPassword), answers PASSWORD_VERIFIER and signs in"
    )
    func passwordSRP() async throws {
        let replay = try await RecordedExchangeTests.Replay("passwordless_srp.json")
        let plugin = replay.plugin
        #expect(try await plugin.signIn(username: "bo", password: "Passw0rd!x", options: Self.userAuth(.passwordSRP)).isSignedIn)
        _ = await plugin.signOut(options: nil)
        _ = try await plugin.signIn(username: "bo", password: nil, options: Self.userAuth())
        #expect(
            try await plugin.confirmSignIn(challengeResponse: AuthFactorType.passwordSRP.challengeResponse, options: nil).nextStep
                == .confirmSignInWithPassword)
        #expect(try await plugin.confirmSignIn(challengeResponse: "Passw0rd!x", options: nil).isSignedIn)
        try await replay.close()
    }
}
