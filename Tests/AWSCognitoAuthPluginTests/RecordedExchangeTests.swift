import AWSCognitoAuthPlugin
import AWSPluginsCore
import Amplify
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

/// The calls moto lacks, against recorded exchanges replayed by the test HTTP server (see
/// Fixtures/README.md): the server refuses any request that differs from the recording.
@Suite("Cognito calls moto lacks, against recorded exchanges")
struct RecordedExchangeTests {
    /// A plugin whose endpoint is the replay server loaded with `fixture`.
    final class Replay: Sendable {
        let server: LocalHTTPServer
        let loop: EventLoop
        let hub: DefaultHubPlugin
        let events: HubEventRecorder
        let plugin: AWSCognitoAuthPlugin
        let folder = NSTemporaryDirectory() + "cognito-replay-\(UUID().uuidString)"
        /// The plugin's block (the replay endpoint, the credential store in `folder`).
        let block: JSONValue

        /// Another plugin on the same endpoint and credential store: the next process.
        func restarted() throws -> AWSCognitoAuthPlugin {
            let next = AWSCognitoAuthPlugin(hub: hub, loop: loop, environment: [:])
            try next.configure(using: block)
            return next
        }

        init(_ fixture: String, flow: String = "USER_PASSWORD_AUTH") async throws {
            server = try await LocalHTTPServer.start()
            loop = try EventLoop(name: "replay")
            hub = DefaultHubPlugin(loop: loop)
            events = HubEventRecorder(channel: .auth, hub: hub)
            let recorded = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(fixture)")
            let http = try HTTPClient(loop: loop)
            let stored = try await http.send(
                HTTPRequest(method: "PUT", url: server.url("/stored/fixtures"), body: .bytes(Array(Data(contentsOf: recorded)))))
            await http.shutdown()
            guard stored.status == 204 else { throw CocoaError(.fileReadUnknown) }
            block = [
                "CognitoUserPool": [
                    "Default": [
                        "PoolId": "us-east-1_Fixture1", "AppClientId": "fixtureclient", "AppClientSecret": "fixturesecret",
                        "Region": "us-east-1", "Endpoint": .string(server.url("/replay").absoluteString),
                    ]
                ],
                "Auth": ["Default": ["authenticationFlowType": .string(flow)]],
                "credentialStore": .string(folder + "/credentials.sqlite"),
            ]
            plugin = AWSCognitoAuthPlugin(hub: hub, loop: loop, environment: [:])
            try plugin.configure(using: block)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }

        func eventNames() async -> [String] {
            await hub.flush()
            return events.eventNames
        }

        func close() async throws {
            await plugin.reset()
            await hub.reset()
            try loop.shutdown()
            server.stop()
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    @Test("ResendConfirmationCode sends SecretHash and returns where the code went; LimitExceededException, retried 3 times, maps to limitExceeded")
    func resendConfirmationCode() async throws {
        let replay = try await Replay("resend_confirmation_code.json")
        let details = try await replay.plugin.resendSignUpCode(for: "bo", options: nil)
        #expect(details.destination == .email("b***@e***.com"))
        #expect(details.attributeKey == .email)
        await #expect { _ = try await replay.plugin.resendSignUpCode(for: "bo", options: nil) } throws: { error in
            guard case AuthError.service(_, _, let underlying as AWSCognitoAuthError) = error else { return false }
            return underlying == .limitExceeded
        }
        #expect(await replay.eventNames() == [HubPayload.EventName.Auth.resendSignUpCodeAPI, HubPayload.EventName.Auth.resendSignUpCodeAPI])
        try await replay.close()
    }

    @Test("Each Cognito error code maps to its AuthError case and AWSCognitoAuthError, keeping Cognito's message")
    func errorCodes() async throws {
        let replay = try await Replay("error_codes.json")
        let expected: [(String, (AuthError) -> Bool)] = [
            ("NotAuthorizedException", { if case .notAuthorized = $0 { true } else { false } }),
            ("UserNotFoundException", { Self.service($0) == .userNotFound }),
            ("UsernameExistsException", { Self.service($0) == .usernameExists }),
            ("AliasExistsException", { Self.service($0) == .aliasExists }),
            ("CodeDeliveryFailureException", { Self.service($0) == .codeDelivery }),
            ("CodeMismatchException", { Self.service($0) == .codeMismatch }),
            ("ExpiredCodeException", { Self.service($0) == .codeExpired }),
            ("InvalidParameterException", { Self.service($0) == .invalidParameter }),
            ("InvalidPasswordException", { Self.service($0) == .invalidPassword }),
            ("TooManyFailedAttemptsException", { Self.service($0) == .failedAttemptsLimitExceeded }),
            ("PasswordResetRequiredException", { Self.service($0) == .passwordResetRequired }),
            (
                "ResourceNotFoundException",
                { if case .configuration(_, _, let e as AWSCognitoAuthError) = $0 { e == .resourceNotFound } else { false } }
            ),
            ("UserLambdaValidationException", { Self.service($0) == .lambda }),
            ("UnsupportedTokenTypeException", { Self.service($0) == .unsupportedToken }),
            ("BrandNewException", { Self.service($0) == .other("BrandNewException") }),
        ]
        for (code, matches) in expected {
            do {
                _ = try await replay.plugin.confirmSignUp(for: "bo", confirmationCode: "000000", options: nil)
                Issue.record("\(code): no error")
            } catch let error as AuthError {
                #expect(matches(error), "\(code) became \(error)")
                #expect(error.errorDescription.contains("recorded \(code)"), "\(code): \(error.errorDescription)")
            }
        }
        try await replay.close()
    }

    private static func service(_ error: AuthError) -> AWSCognitoAuthError? {
        if case .service(_, _, let underlying as AWSCognitoAuthError) = error { return underlying }
        return nil
    }

    @Test("DeleteUser with the access token ends the session and dispatches Auth.userDeleted")
    func deleteUser() async throws {
        let replay = try await Replay("delete_user.json")
        #expect(try await replay.plugin.signIn(username: "bo", password: "Passw0rd!x", options: nil).isSignedIn)
        try await replay.plugin.deleteUser()
        await #expect(throws: AuthError.self) { _ = try await replay.plugin.getCurrentUser() }
        let names = await replay.eventNames()
        #expect(names.suffix(2) == [HubPayload.EventName.Auth.deleteUserAPI, HubPayload.EventName.Auth.userDeleted])
        #expect(replay.events.payloads.last?.data as? String == "bo")
        try await replay.close()
    }

    @Test("A refresh refused because the user was deleted ends the session with one Auth.sessionExpired")
    func refreshOfDeletedUser() async throws {
        let replay = try await Replay("refresh_deleted_user.json")
        _ = try await replay.plugin.signIn(username: "bo", password: "Passw0rd!x", options: nil)
        #expect(!(try await replay.plugin.fetchAuthSession(options: .forceRefresh()).isSignedIn))
        #expect(!(try await replay.plugin.fetchAuthSession(options: nil).isSignedIn))
        await #expect { _ = try await replay.plugin.getCurrentUser() } throws: { error in
            if case AuthError.sessionExpired = error { return true }
            return false
        }
        let names = await replay.eventNames()
        #expect(names.filter { $0 == HubPayload.EventName.Auth.sessionExpired }.count == 1)
        #expect(replay.events.payloads.first { $0.eventName == HubPayload.EventName.Auth.sessionExpired }?.data as? String == "bo")
        try await replay.close()
    }

    @Test("MFA_SETUP: the authenticator secret is the next step, the first code is verified on the session, and the sign-in completes")
    func totpSetupDuringSignIn() async throws {
        let replay = try await Replay("mfa_setup.json")
        let first = try await replay.plugin.signIn(username: "bo", password: "Passw0rd!x", options: nil)
        guard case .continueSignInWithTOTPSetup(let details) = first.nextStep else {
            Issue.record("expected a TOTP set-up step, got \(first.nextStep)")
            return
        }
        #expect(details.sharedSecret == "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP")
        #expect(
            try details.getSetupURI(appName: "MyApp").absoluteString == "otpauth://totp/MyApp:bo?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=MyApp"
        )
        #expect(try await replay.plugin.confirmSignIn(challengeResponse: "123456", options: nil).isSignedIn)
        #expect(try await replay.plugin.getCurrentUser().username == "bo")
        try await replay.close()
    }

    @Test("Sign-out revokes the refresh token with RevokeToken (with the client secret) and completes")
    func revokeToken() async throws {
        let replay = try await Replay("revoke_token.json")
        _ = try await replay.plugin.signIn(username: "bo", password: "Passw0rd!x", options: nil)
        let result = await replay.plugin.signOut(options: nil)
        guard case .complete = result as? AWSCognitoSignOutResult else {
            Issue.record("expected a complete sign-out, got \(result)")
            return
        }
        #expect(await replay.eventNames().suffix(2) == [HubPayload.EventName.Auth.signOutAPI, HubPayload.EventName.Auth.signedOut])
        try await replay.close()
    }

    @Test(
        "Two processes on one credential store: the second user's sign-in is refused (invalidState, the first signed in meanwhile), its refresh token revoked with RevokeToken, and the store keeps the first"
    )
    func secondSignInIsRefusedAndRevoked() async throws {
        let replay = try await Replay("sign_in_race.json")
        // A second plugin on the same credential store and stand-in stands for a second process.
        let second = AWSCognitoAuthPlugin(hub: replay.hub, loop: replay.loop, environment: [:])
        try second.configure(
            using: [
                "CognitoUserPool": [
                    "Default": [
                        "PoolId": "us-east-1_Fixture1", "AppClientId": "fixtureclient", "AppClientSecret": "fixturesecret",
                        "Region": "us-east-1", "Endpoint": .string(replay.server.url("/replay").absoluteString),
                    ]
                ],
                "Auth": ["Default": ["authenticationFlowType": "USER_PASSWORD_AUTH"]],
                "credentialStore": .string(replay.folder + "/credentials.sqlite"),
            ] as JSONValue)
        _ = try await second.fetchAuthSession(options: nil)
        #expect(try await replay.plugin.signIn(username: "bo", password: "Passw0rd!x", options: nil).isSignedIn)
        do {
            _ = try await second.signIn(username: "al", password: "Passw0rd!y", options: nil)
            Issue.record("the second process's sign-in succeeded")
        } catch AuthError.invalidState(let description, _, _) {
            #expect(description.contains("'bo' signed in meanwhile"), "\(description)")
        }
        let http = try HTTPClient(loop: replay.loop)
        let log = try JSONValue(parsing: try await http.send(HTTPRequest(url: replay.server.url("/stored/replay-log"))).body)
        await http.shutdown()
        let calls = (log.asArray ?? []).map { "\($0["target"]?.stringValue ?? "?") \($0["matched"]?.booleanValue == true)" }
        #expect(
            calls == [
                "AWSCognitoIdentityProviderService.InitiateAuth true", "AWSCognitoIdentityProviderService.InitiateAuth true",
                "AWSCognitoIdentityProviderService.RevokeToken true",
            ])
        #expect(try await replay.plugin.getCurrentUser().username == "bo")
        #expect(await replay.eventNames().filter { $0 == HubPayload.EventName.Auth.signedIn }.count == 1)
        await second.reset()
        try await replay.close()
    }

    @Test("CUSTOM_AUTH: the custom challenge is the next step, confirmSignIn sends ANSWER with the session and SECRET_HASH, and signs in")
    func customChallenge() async throws {
        let replay = try await Replay("custom_auth.json", flow: "CUSTOM_AUTH")
        let first = try await replay.plugin.signIn(username: "bo", password: nil, options: nil)
        #expect(first.nextStep == .confirmSignInWithCustomChallenge(["question": "What is 2 + 2?"]))
        let done = try await replay.plugin.confirmSignIn(challengeResponse: "4", options: nil)
        #expect(done.isSignedIn)
        let user = try await replay.plugin.getCurrentUser()
        #expect(user.username == "bo")
        #expect(user.userId == "5f0c-bo")
        #expect(await replay.eventNames().contains(HubPayload.EventName.Auth.signedIn))
        try await replay.close()
    }

    @Test(
        "AuthFlowType.customWithSRP: CUSTOM_AUTH proves the password with SRP (PASSWORD_VERIFIER) first, then the custom challenge is the next step")
    func customWithSRP() async throws {
        let replay = try await Replay("custom_with_srp.json")
        let options = AuthSignInRequest.Options(pluginOptions: AWSAuthSignInOptions(authFlowType: .customWithSRP))
        let first = try await replay.plugin.signIn(username: "bo", password: "Passw0rd!x", options: options)
        #expect(first.nextStep == .confirmSignInWithCustomChallenge(["question": "What is 2 + 2?"]))
        #expect(try await replay.plugin.confirmSignIn(challengeResponse: "4", options: nil).isSignedIn)
        try await replay.close()
    }
}
