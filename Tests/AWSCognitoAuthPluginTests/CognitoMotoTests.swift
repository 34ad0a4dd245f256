import AWSCognitoAuthPlugin
import AWSPluginsCore
import Amplify
import AmplifyAuthCore
import AmplifyTestKit
import Foundation
import Testing

/// The plugin against moto_server's user and identity pools, configured from a CLI-shaped block.
@Suite("Cognito plugin against moto")
struct CognitoMotoTests {
    @Test("USER_SRP_AUTH (the default) signs in, dispatches Auth.signedIn, and a second process finds the session in the store")
    func srpSignInPersists() async throws {
        try await MotoServer.with { moto in
            let fixture = try CognitoFixture(moto: moto, pool: ["name": "srp", "users": [alice]])
            let plugin = try fixture.plugin()
            let result = try await plugin.signIn(username: "alice", password: "Secr3t!pass", options: nil)
            #expect(result.isSignedIn)
            let user = try await plugin.getCurrentUser()
            #expect(user.username == "alice")
            let session = try #require(try await plugin.fetchAuthSession(options: nil) as? AWSAuthCognitoSession)
            #expect(session.isSignedIn)
            #expect(try session.getUserSub().get() == user.userId)
            let tokens = try session.getCognitoTokens().get()
            #expect(tokens.expiration > Date().addingTimeInterval(3000))
            let names = await fixture.eventNames()
            #expect(names == [HubPayload.EventName.Auth.signInAPI, HubPayload.EventName.Auth.signedIn, HubPayload.EventName.Auth.fetchSessionAPI])
            #expect((fixture.events.payloads[1].data as? SignedInUser)?.username == "alice")

            let restarted = try fixture.plugin()
            #expect(try await restarted.getCurrentUser().userId == user.userId)
            #expect(try await restarted.fetchUserAttributes(options: nil).contains(AuthUserAttribute(.email, value: "alice@example.com")))
            try await fixture.close(plugin, restarted)
        }
    }

    @Test("With an app client secret every call carries SECRET_HASH: password sign-in and a forced refresh (which moto checks) work")
    func clientSecret() async throws {
        try await MotoServer.with { moto in
            let fixture = try CognitoFixture(moto: moto, pool: ["name": "secret", "clientSecret": true, "users": [alice]])
            #expect(fixture.seeded["clientSecret"]?.stringValue != nil)
            let plugin = try fixture.plugin(flow: "USER_PASSWORD_AUTH")
            #expect(try await plugin.signIn(username: "alice", password: "Secr3t!pass", options: nil).isSignedIn)
            let before = try #require(try await plugin.fetchAuthSession(options: nil) as? AWSAuthCognitoSession).getCognitoTokens().get()
            let after = try #require(try await plugin.fetchAuthSession(options: .forceRefresh()) as? AWSAuthCognitoSession)
            #expect(after.isSignedIn)
            #expect(try after.getCognitoTokens().get().accessToken != before.accessToken)
            #expect(try after.getCognitoTokens().get().refreshToken == before.refreshToken)
            try await fixture.close(plugin)
        }
    }

    @Test("Sign-up needs confirmation; signing in before it is the .confirmSignUp step; taken names and weak passwords map to AWSCognitoAuthError")
    func signUpFlow() async throws {
        try await MotoServer.with { moto in
            let fixture = try CognitoFixture(moto: moto, pool: ["name": "signup"])
            let plugin = try fixture.plugin()
            let options = AuthSignUpRequest.Options(userAttributes: [AuthUserAttribute(.email, value: "bo@example.com")])
            let signedUp = try await plugin.signUp(username: "bo", password: "Passw0rd!x", options: options)
            #expect(!signedUp.isSignUpComplete)
            #expect(signedUp.userID != nil)
            let early = try await plugin.signIn(username: "bo", password: "Passw0rd!x", options: nil)
            #expect(early.nextStep == .confirmSignUp(nil))
            #expect(try await plugin.confirmSignUp(for: "bo", confirmationCode: "123456", options: nil).isSignUpComplete)
            #expect(try await plugin.signIn(username: "bo", password: "Passw0rd!x", options: nil).isSignedIn)

            await #expect { _ = try await plugin.signUp(username: "bo", password: "Passw0rd!x", options: options) } throws: { error in
                guard case AuthError.service(_, _, let underlying as AWSCognitoAuthError) = error else { return false }
                return underlying == .usernameExists
            }
            await #expect { _ = try await plugin.signUp(username: "cy", password: "x", options: nil) } throws: { error in
                guard case AuthError.service(_, _, let underlying as AWSCognitoAuthError) = error else { return false }
                return underlying == .invalidPassword
            }
            let states = await fixture.eventNames().filter { $0 == HubPayload.EventName.Auth.signUpAPI }
            #expect(states.count == 3)
            try await fixture.close(plugin)
        }
    }

    @Test("A wrong password is notAuthorized and an unknown user userNotFound; neither signs in")
    func signInFailures() async throws {
        try await MotoServer.with { moto in
            let fixture = try CognitoFixture(moto: moto, pool: ["name": "fail", "users": [alice]])
            let plugin = try fixture.plugin(flow: "USER_PASSWORD_AUTH")
            await #expect { _ = try await plugin.signIn(username: "alice", password: "wrong", options: nil) } throws: { error in
                if case AuthError.notAuthorized = error { return true }
                return false
            }
            await #expect { _ = try await plugin.signIn(username: "zed", password: "whatever", options: nil) } throws: { error in
                guard case AuthError.service(_, _, let underlying as AWSCognitoAuthError) = error else { return false }
                return underlying == .userNotFound
            }
            await #expect(throws: AuthError.self) { _ = try await plugin.getCurrentUser() }
            #expect(!(try await plugin.fetchAuthSession(options: nil).isSignedIn))
            #expect(await !fixture.eventNames().contains(HubPayload.EventName.Auth.signedIn))
            try await fixture.close(plugin)
        }
    }

    @Test(
        "Attributes, password change and password reset go through GetUser, UpdateUserAttributes, ChangePassword, ForgotPassword and ConfirmForgotPassword"
    )
    func attributesAndPasswords() async throws {
        try await MotoServer.with { moto in
            let fixture = try CognitoFixture(moto: moto, pool: ["name": "attrs", "users": [alice]])
            let plugin = try fixture.plugin()
            _ = try await plugin.signIn(username: "alice", password: "Secr3t!pass", options: nil)
            let updated = try await plugin.update(userAttribute: AuthUserAttribute(.name, value: "Alice A."), options: nil)
            #expect(updated.isUpdated)
            #expect(try await plugin.fetchUserAttributes(options: nil).contains(AuthUserAttribute(.name, value: "Alice A.")))

            await #expect { try await plugin.update(oldPassword: "wrong", to: "N3w!passw0rd", options: nil) } throws: { error in
                if case AuthError.notAuthorized = error { return true }
                return false
            }
            try await plugin.update(oldPassword: "Secr3t!pass", to: "N3w!passw0rd", options: nil)
            _ = await plugin.signOut(options: nil)
            #expect(try await plugin.signIn(username: "alice", password: "N3w!passw0rd", options: nil).isSignedIn)
            _ = await plugin.signOut(options: nil)

            let reset = try await plugin.resetPassword(for: "alice", options: nil)
            guard case .confirmResetPasswordWithCode = reset.nextStep else {
                Issue.record("expected a code step, got \(reset.nextStep)")
                return
            }
            try await plugin.confirmResetPassword(for: "alice", with: "Res3t!passw0rd", confirmationCode: "123456", options: nil)
            #expect(try await plugin.signIn(username: "alice", password: "Res3t!passw0rd", options: nil).isSignedIn)
            try await fixture.close(plugin)
        }
    }

    @Test("NEW_PASSWORD_REQUIRED, SMS_MFA and SOFTWARE_TOKEN_MFA come back as sign-in steps and confirmSignIn completes them")
    func challenges() async throws {
        try await MotoServer.with { moto in
            let fixture = try CognitoFixture(
                moto: moto,
                pool: [
                    "name": "challenges",
                    "users": [
                        ["username": "newbie", "temporaryPassword": "Temp0rary!x"],
                        ["username": "sms", "password": "Passw0rd!x", "mfa": "sms", "attributes": ["phone_number": "+15555550100"]],
                        ["username": "totp", "password": "Passw0rd!x", "mfa": "totp"],
                    ],
                ])
            let plugin = try fixture.plugin(flow: "USER_PASSWORD_AUTH")
            await #expect(throws: AuthError.self) { _ = try await plugin.confirmSignIn(challengeResponse: "x", options: nil) }

            let first = try await plugin.signIn(username: "newbie", password: "Temp0rary!x", options: nil)
            guard case .confirmSignInWithNewPassword = first.nextStep else {
                Issue.record("expected a new-password step, got \(first.nextStep)")
                return
            }
            #expect(try await plugin.confirmSignIn(challengeResponse: "Ch0sen!passw0rd", options: nil).isSignedIn)
            #expect(try await plugin.getCurrentUser().username == "newbie")
            _ = await plugin.signOut(options: nil)
            #expect(try await plugin.signIn(username: "newbie", password: "Ch0sen!passw0rd", options: nil).isSignedIn)
            _ = await plugin.signOut(options: nil)

            let sms = try await plugin.signIn(username: "sms", password: "Passw0rd!x", options: nil)
            guard case .confirmSignInWithSMSMFACode = sms.nextStep else {
                Issue.record("expected an SMS step, got \(sms.nextStep)")
                return
            }
            #expect(try await plugin.confirmSignIn(challengeResponse: "123456", options: nil).isSignedIn)
            _ = await plugin.signOut(options: nil)

            let totp = try await plugin.signIn(username: "totp", password: "Passw0rd!x", options: nil)
            #expect(totp.nextStep == .confirmSignInWithTOTPCode)
            #expect(try await plugin.confirmSignIn(challengeResponse: "654321", options: nil).isSignedIn)
            let signedIn = await fixture.eventNames().filter { $0 == HubPayload.EventName.Auth.signedIn }
            #expect(signedIn.count == 4)
            try await fixture.close(plugin)
        }
    }

    @Test("A global sign-out in one process ends another's session: its refresh timer dispatches Auth.sessionExpired exactly once")
    func globalSignOutSeenElsewhere() async throws {
        try await MotoServer.with { moto in
            let fixture = try CognitoFixture(moto: moto, pool: ["name": "global", "users": [alice]])
            let laptop = try fixture.plugin(store: "laptop.sqlite")
            // moto's access tokens live 3600 s: a lead of 3599 s makes the timer refresh after ~1 s.
            let server = try fixture.plugin(store: "server.sqlite", extra: ["refreshLeadSeconds": 3599])
            _ = try await laptop.signIn(username: "alice", password: "Secr3t!pass", options: nil)
            _ = try await server.signIn(username: "alice", password: "Secr3t!pass", options: nil)
            // Listening before the sign-out: the server's timer may see it before signOut returns.
            let expired = HubEventRecorder(channel: .auth, isIncluded: { $0.eventName == HubPayload.EventName.Auth.sessionExpired }, hub: fixture.hub)
            let signOut = await laptop.signOut(options: AuthSignOutRequest.Options(globalSignOut: true))
            #expect(signOut.signedOutLocally)
            #expect((signOut as? AWSCognitoSignOutResult).map { if case .complete = $0 { true } else { false } } == true)

            #expect(await expired.waitForEvents(count: 1, timeout: .seconds(20)))
            // Another timer period: still exactly one.
            try await Task.sleep(for: .seconds(2))
            await fixture.hub.flush()
            #expect(fixture.events.eventNames.filter { $0 == HubPayload.EventName.Auth.sessionExpired }.count == 1)
            #expect(expired.payloads.first?.data as? String == "alice")
            await #expect { _ = try await server.getCurrentUser() } throws: { error in
                if case AuthError.sessionExpired = error { return true }
                return false
            }
            #expect(!(try await server.fetchAuthSession(options: nil).isSignedIn))
            expired.stop()
            try await fixture.close(laptop, server)
        }
    }

    @Test("The timer refreshes the tokens before the access token expires, with no call and no event")
    func proactiveRefresh() async throws {
        try await MotoServer.with { moto in
            let fixture = try CognitoFixture(moto: moto, pool: ["name": "timer", "users": [alice]])
            // moto's tokens live 3600 s; a lead of 3599 s puts the refresh about 1 s after sign-in.
            let plugin = try fixture.plugin(extra: ["refreshLeadSeconds": 3599])
            _ = try await plugin.signIn(username: "alice", password: "Secr3t!pass", options: nil)
            let first = try #require(try await plugin.fetchAuthSession(options: nil) as? AWSAuthCognitoSession).getCognitoTokens().get()
            var renewed = first
            let deadline = ContinuousClock.now + .seconds(20)
            while renewed.accessToken == first.accessToken, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
                renewed = try #require(try await plugin.fetchAuthSession(options: nil) as? AWSAuthCognitoSession).getCognitoTokens().get()
            }
            #expect(renewed.accessToken != first.accessToken)
            #expect(renewed.expiration >= first.expiration)
            let names = await fixture.eventNames()
            #expect(!names.contains(HubPayload.EventName.Auth.sessionExpired))
            #expect(names.filter { $0 == HubPayload.EventName.Auth.signedIn }.count == 1)
            try await fixture.close(plugin)
        }
    }

    @Test(
        "A call whose access token was revoked elsewhere refreshes once, then ends the session as expired (one event, the call throws sessionExpired)"
    )
    func revokedTokenDuringCall() async throws {
        try await MotoServer.with { moto in
            let fixture = try CognitoFixture(moto: moto, pool: ["name": "revoked", "users": [alice]])
            let laptop = try fixture.plugin(store: "laptop.sqlite")
            let server = try fixture.plugin(store: "server.sqlite")
            _ = try await laptop.signIn(username: "alice", password: "Secr3t!pass", options: nil)
            _ = try await server.signIn(username: "alice", password: "Secr3t!pass", options: nil)
            _ = await laptop.signOut(options: AuthSignOutRequest.Options(globalSignOut: true))
            await #expect { _ = try await server.fetchUserAttributes(options: nil) } throws: { error in
                if case AuthError.sessionExpired = error { return true }
                return false
            }
            await #expect(throws: AuthError.self) { _ = try await server.fetchUserAttributes(options: nil) }
            let names = await fixture.eventNames()
            #expect(names.filter { $0 == HubPayload.EventName.Auth.sessionExpired }.count == 1)
            try await fixture.close(laptop, server)
        }
    }

    @Test("The identity pool gives guest credentials signed out and the user's own identity signed in, first in the AWS plugins' provider chain")
    func identityPoolCredentials() async throws {
        try await MotoServer.with { moto in
            let fixture = try CognitoFixture(moto: moto, pool: ["name": "ids", "users": [alice]], identityPool: true)
            let plugin = try fixture.plugin()
            let guest = try #require(try await plugin.fetchAuthSession(options: nil) as? AWSAuthCognitoSession)
            #expect(!guest.isSignedIn)
            let guestId = try guest.getIdentityId().get()
            #expect(!(try guest.getAWSCredentials().get().accessKeyId.isEmpty))
            _ = try await plugin.signIn(username: "alice", password: "Secr3t!pass", options: nil)
            let user = try #require(try await plugin.fetchAuthSession(options: nil) as? AWSAuthCognitoSession)
            #expect(user.isSignedIn)
            let userId = try user.getIdentityId().get()
            #expect(userId != guestId)
            let provider = try await plugin.awsCredentialsProvider()
            #expect(!(try await provider.credentials().secretAccessKey.isEmpty))
            #expect(try await plugin.identityId() == userId)

            // The AWS plugins' default chain asks the Auth plugin first; without one it moves on.
            let chained = try await CredentialsProviderChain([
                AuthPluginCredentialsProvider(plugins: { [plugin] }),
                StaticCredentialsProvider(AWSCredentials(accessKeyId: "static", secretAccessKey: "s")),
            ]).credentials()
            #expect(chained.accessKeyId == (try user.getAWSCredentials().get().accessKeyId))
            let fallback = try await CredentialsProviderChain([
                AuthPluginCredentialsProvider(plugins: { [] }),
                StaticCredentialsProvider(AWSCredentials(accessKeyId: "static", secretAccessKey: "s")),
            ]).credentials()
            #expect(fallback.accessKeyId == "static")
            try await fixture.close(plugin)
        }
    }

    @Test(
        "An identity-pool-only configuration gives guest credentials and an identity id with nobody signed in; user pool calls say there is no user pool"
    )
    func identityPoolOnlyGuest() async throws {
        try await MotoServer.with { moto in
            let fixture = try CognitoFixture(moto: moto, pool: ["name": "unused", "users": []], identityPool: true)
            let identityPool = try #require(fixture.seeded["identityPoolId"]?.stringValue)
            let plugin = AWSCognitoAuthPlugin(hub: fixture.hub, loop: fixture.loop, environment: [:])
            try plugin.configure(
                using: [
                    "IdentityManager": ["Default": [:]],
                    "CredentialsProvider": [
                        "CognitoIdentity": [
                            "Default": [
                                "PoolId": .string(identityPool), "Region": "us-east-1", "Endpoint": .string(moto.endpoint.absoluteString),
                            ]
                        ]
                    ],
                    "credentialStore": .string(fixture.folder + "/guest.sqlite"),
                ] as JSONValue)
            let session = try #require(try await plugin.fetchAuthSession(options: nil) as? AWSAuthCognitoSession)
            #expect(!session.isSignedIn)
            #expect(try session.getIdentityId().get().hasPrefix("us-east-1:"))
            #expect(!(try session.getAWSCredentials().get().accessKeyId.isEmpty))
            do {
                _ = try await plugin.signIn(username: "alice", password: "Secr3t!pass", options: nil)
                Issue.record("sign-in without a user pool succeeded")
            } catch let error as AuthError {
                guard case .configuration(let description, _, _) = error else {
                    Issue.record("\(error)")
                    return
                }
                #expect(description == "This configuration has no user pool (only an identity pool), so InitiateAuth cannot be called.")
            }
            #expect(throws: AuthError.self) { try plugin.tokenVerifier() }
            try await fixture.close(plugin)
        }
    }

    @Test("Sign-out without revocation support (moto lacks RevokeToken) still signs out locally and says the token was not revoked")
    func signOutPartial() async throws {
        try await MotoServer.with { moto in
            let fixture = try CognitoFixture(moto: moto, pool: ["name": "partial", "users": [alice]])
            let plugin = try fixture.plugin()
            _ = try await plugin.signIn(username: "alice", password: "Secr3t!pass", options: nil)
            let result = await plugin.signOut(options: nil)
            #expect(result.signedOutLocally)
            guard case .partial(let revokeError?, nil) = result as? AWSCognitoSignOutResult else {
                Issue.record("expected a partial sign-out, got \(result)")
                return
            }
            #expect(revokeError.errorDescription.contains("RevokeToken"))
            await #expect(throws: AuthError.self) { _ = try await plugin.getCurrentUser() }
            #expect(await fixture.eventNames().contains(HubPayload.EventName.Auth.signedOut))
            let nobody = await plugin.signOut(options: nil)
            #expect(!nobody.signedOutLocally)
            try await fixture.close(plugin)
        }
    }

    @Test("A pool id moto does not know is a configuration error naming the pool")
    func unknownPool() async throws {
        try await MotoServer.with { moto in
            let fixture = try CognitoFixture(moto: moto, pool: ["name": "real"])
            let plugin = AWSCognitoAuthPlugin(hub: fixture.hub, loop: fixture.loop, environment: [:])
            try plugin.configure(
                using: [
                    "CognitoUserPool": [
                        "Default": ["PoolId": "us-east-1_nope", "AppClientId": "nope", "Endpoint": .string(moto.endpoint.absoluteString)]
                    ],
                    "credentialStore": .string(fixture.folder + "/c.sqlite"),
                ] as JSONValue)
            await #expect { _ = try await plugin.signUp(username: "x", password: "Passw0rd!x", options: nil) } throws: { error in
                guard case AuthError.configuration(let description, _, _) = error else { return false }
                return description.contains("us-east-1_nope") || description.contains("SignUp")
            }
            try await fixture.close(plugin)
        }
    }
}
