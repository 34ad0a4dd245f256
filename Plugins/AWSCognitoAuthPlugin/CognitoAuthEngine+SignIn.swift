import AWSPluginsCore
import Amplify
import AmplifyAuthCore
import AmplifyCrypto
import Foundation

/// Sign-in: the flows (SRP, password, custom), the challenges and their answers, the hosted UI,
/// and the session an `AuthenticationResult` makes (as the local engine's
/// `LocalAuthEngine+SignIn.swift`).
extension CognitoAuthEngine {

    /// Signs in; returns the result and, when the sign-in completed, the user for `Auth.signedIn`.
    func signIn(username: String?, password: String?, flow requested: AuthFlowType?) async throws
        -> (AuthSignInResult, SignedInUser?)
    {
        try await prepare()
        if let session = await (try sessions()).current {
            throw AuthError.invalidState("'\(session.username)' is already signed in.", "Sign out first.")
        }
        try requireNotFederated()
        guard let username, !username.isEmpty else {
            throw AuthError.validation("username", "A username is required to sign in.", "Pass the username.")
        }
        pending = nil
        let flow = requested ?? configuration.authenticationFlow.flowType
        do {
            switch flow {
            case .userAuth(let preferred):
                return try await choiceBasedSignIn(username: username, password: password, preferred: preferred)
            case .customWithSRP:
                // SRP first (CHALLENGE_NAME SRP_A), then the pool's custom challenges.
                guard let password, !password.isEmpty else { throw missingPassword() }
                let ephemeral = try CognitoSRP.start()
                let answer = try await service.initiateAuth(
                    flow: "CUSTOM_AUTH", parameters: ["USERNAME": username, "SRP_A": ephemeral.publicValueHex, "CHALLENGE_NAME": "SRP_A"],
                    username: username)
                guard answer["ChallengeName"]?.stringValue == "PASSWORD_VERIFIER" else { return try await handle(answer, username: username) }
                return try await answerPasswordVerifier(answer, typedUsername: username, password: password, ephemeral: ephemeral)
            case .userSRP:
                guard let password, !password.isEmpty else { throw missingPassword() }
                let ephemeral = try CognitoSRP.start()
                let answer = try await initiateWithDevice(
                    flow: "USER_SRP_AUTH", parameters: ["USERNAME": username, "SRP_A": ephemeral.publicValueHex], username: username)
                guard answer["ChallengeName"]?.stringValue == "PASSWORD_VERIFIER" else { return try await handle(answer, username: username) }
                return try await answerPasswordVerifier(answer, typedUsername: username, password: password, ephemeral: ephemeral)
            case .userPassword:
                guard let password, !password.isEmpty else { throw missingPassword() }
                let answer = try await initiateWithDevice(
                    flow: "USER_PASSWORD_AUTH", parameters: ["USERNAME": username, "PASSWORD": password], username: username)
                return try await handle(answer, username: username)
            default:
                // customWithoutSRP (and the deprecated custom).
                var parameters = ["USERNAME": username]
                if let password, !password.isEmpty { parameters["PASSWORD"] = password }
                let answer = try await service.initiateAuth(flow: "CUSTOM_AUTH", parameters: parameters, username: username)
                return try await handle(answer, username: username)
            }
        } catch let error as AuthError {
            // Two refusals are next steps in Amplify, not errors.
            if case .service(_, _, let underlying as AWSCognitoAuthError) = error {
                if underlying == .userNotConfirmed { return (AuthSignInResult(nextStep: .confirmSignUp(nil)), nil) }
                if underlying == .passwordResetRequired { return (AuthSignInResult(nextStep: .resetPassword(nil)), nil) }
            }
            throw error
        } catch let error as CryptoError {
            throw AuthError.service("The SRP challenge could not be answered: \(error)", "Check that the endpoint is a Cognito user pool.", error)
        }
    }

    private func missingPassword() -> AuthError {
        AuthError.validation("password", "This sign-in flow needs a password.", "Pass the password.")
    }

    func answerPasswordVerifier(
        _ challenge: JSONValue, typedUsername: String, password: String, ephemeral: CognitoSRP.Ephemeral
    ) async throws -> (AuthSignInResult, SignedInUser?) {
        let parameters = challenge["ChallengeParameters"]
        guard let userId = parameters?["USER_ID_FOR_SRP"]?.stringValue, let salt = parameters?["SALT"]?.stringValue,
            let serverPublic = parameters?["SRP_B"]?.stringValue, let block = parameters?["SECRET_BLOCK"]?.stringValue
        else {
            throw AuthError.service(
                "Cognito's PASSWORD_VERIFIER challenge lacks SALT, SRP_B, SECRET_BLOCK or USER_ID_FOR_SRP.", "Check the endpoint.")
        }
        let timestamp = CognitoSRP.timestamp(Date())
        let claim = try CognitoSRP.passwordClaim(
            poolId: configuration.userPoolId, userIdForSRP: userId, password: password, ephemeral: ephemeral,
            saltHex: salt, serverPublicHex: serverPublic, secretBlock: block, timestamp: timestamp)
        // The challenge's USERNAME is the user's canonical name (not an alias typed in).
        let username = parameters?["USERNAME"]?.stringValue ?? userId
        let answer = try await service.respondToAuthChallenge(
            name: "PASSWORD_VERIFIER", session: challenge["Session"]?.stringValue,
            responses: ["PASSWORD_CLAIM_SECRET_BLOCK": block, "PASSWORD_CLAIM_SIGNATURE": claim.signature, "TIMESTAMP": timestamp],
            username: username)
        return try await handle(answer, username: username)
    }

    /// Makes a new sign-in's `session` the process-wide one, unless another sign-in won it
    /// meanwhile (this actor is re-entered across every call to Cognito, and other processes
    /// share the credential store): then the new refresh token is revoked at once, so it never
    /// outlives the refusal, and the keeper's `AuthError.invalidState` is thrown.
    private func claim(_ session: StoredSession) async throws {
        do {
            try await sessions().begin(session)
        } catch {
            try? await service.revokeToken(refreshToken: session.refreshToken)
            throw error
        }
    }

    /// Turns an InitiateAuth / RespondToAuthChallenge answer into a finished sign-in or the next step.
    func handle(_ answer: JSONValue, username: String) async throws -> (AuthSignInResult, SignedInUser?) {
        if answer["AuthenticationResult"] != nil {
            pending = nil
            let session = try Self.session(from: answer, username: username, keepingRefreshToken: nil)
            try await claim(session)
            await confirmNewDevice(answer, accessToken: session.accessToken, usernames: [session.username, username])
            return (AuthSignInResult(nextStep: .done), SignedInUser(username: session.username, userId: session.userId))
        }
        guard let name = answer["ChallengeName"]?.stringValue else {
            throw AuthError.service("Cognito answered with neither tokens nor a challenge.", "Check the endpoint.")
        }
        var parameters: [String: String] = [:]
        for (key, value) in answer["ChallengeParameters"]?.asObject ?? [:] { parameters[key] = value.stringValue }
        let challengeUser = parameters["USERNAME"] ?? parameters["USER_ID_FOR_SRP"] ?? username
        let step: AuthSignInStep
        switch name {
        case "NEW_PASSWORD_REQUIRED":
            step = .confirmSignInWithNewPassword(parameters.filter { $0.key != "USERNAME" })
        case "SMS_MFA":
            let medium: [String: JSONValue] = [
                "Destination": parameters["CODE_DELIVERY_DESTINATION"].map(JSONValue.string) ?? .null,
                "DeliveryMedium": .string(parameters["CODE_DELIVERY_DELIVERY_MEDIUM"] ?? "SMS"),
            ]
            step = .confirmSignInWithSMSMFACode(CognitoUserPoolService.deliveryDetails(.object(medium)), nil)
        case "SOFTWARE_TOKEN_MFA":
            step = .confirmSignInWithTOTPCode
        case "EMAIL_OTP":
            let medium: [String: JSONValue] = [
                "Destination": parameters["CODE_DELIVERY_DESTINATION"].map(JSONValue.string) ?? .null, "DeliveryMedium": "EMAIL",
            ]
            step = .confirmSignInWithOTP(CognitoUserPoolService.deliveryDetails(.object(medium)))
        case "CUSTOM_CHALLENGE":
            step = .confirmSignInWithCustomChallenge(parameters.filter { $0.key != "USERNAME" })
        case "SELECT_MFA_TYPE":
            let types = Self.mfaTypes(parameters["MFAS_CAN_CHOOSE"])
            step = .continueSignInWithMFASelection(types)
        case "DEVICE_SRP_AUTH":
            // A remembered device: it proves its secret instead of an MFA code.
            return try await answerDeviceSRP(answer, usernames: [challengeUser, username])
        case "SELECT_CHALLENGE":
            // USER_AUTH's first factors (WEB_AUTHN, offered on Apple platforms only, is left out).
            let names = (answer["AvailableChallenges"]?.asArray ?? []).compactMap(\.stringValue)
            let factors = Set(names.compactMap(AuthFactorType.init(challengeResponse:)))
            parameters[Self.offeredFactorsKey] = factors.map(\.challengeResponse).sorted().joined(separator: ",")
            step = .continueSignInWithFirstFactorSelection(factors)
        case "SMS_OTP":
            let medium: [String: JSONValue] = [
                "Destination": parameters["CODE_DELIVERY_DESTINATION"].map(JSONValue.string) ?? .null, "DeliveryMedium": "SMS",
            ]
            step = .confirmSignInWithOTP(CognitoUserPoolService.deliveryDetails(.object(medium)))
        case "MFA_SETUP":
            // The pool requires MFA and the user has none yet: set up an authenticator app.
            guard Self.mfaTypes(parameters["MFAS_CAN_SETUP"]).contains(.totp), let session = answer["Session"]?.stringValue else {
                throw AuthError.service(
                    "The pool asks this user to set up MFA, and only an authenticator app (TOTP) can be set up during sign-in here.",
                    "Enable TOTP MFA for the pool, or register the user's phone number first.")
            }
            let association = try await service.associateSoftwareToken(session: session)
            guard let secret = association["SecretCode"]?.stringValue else {
                throw AuthError.service("AssociateSoftwareToken answered without a secret.", "Check the endpoint.")
            }
            pending = PendingChallenge(
                name: name, session: association["Session"]?.stringValue ?? session, username: challengeUser, parameters: parameters)
            return (AuthSignInResult(nextStep: .continueSignInWithTOTPSetup(TOTPSetupDetails(sharedSecret: secret, username: challengeUser))), nil)
        default:
            throw AuthError.service(
                "Cognito asked for the \(name) challenge, which this plugin does not answer.",
                "Complete the user's set-up in the Cognito console, or use another sign-in flow.")
        }
        pending = PendingChallenge(name: name, session: answer["Session"]?.stringValue, username: challengeUser, parameters: parameters)
        return (AuthSignInResult(nextStep: step), nil)
    }

    /// The hosted UI's code flow with PKCE, received on the loopback redirect URI.
    func signInWithWebUI(presentURL: @Sendable (URL) -> Void, timeout: Duration) async throws -> (AuthSignInResult, SignedInUser?) {
        try await prepare()
        guard let oauth = configuration.oauth else {
            throw AuthError.configuration(
                "The hosted UI is not configured.",
                "Add Auth.Default.OAuth (WebDomain, AppClientId, SignInRedirectURI, Scopes) to the awsCognitoAuthPlugin block.")
        }
        if let session = await (try sessions()).current {
            throw AuthError.invalidState("'\(session.username)' is already signed in.", "Sign out first.")
        }
        try requireNotFederated()
        pending = nil
        let flow = HostedUISignIn(oauth: oauth, clientSecret: configuration.appClientSecret, http: http, loop: try loop())
        let answer = try await flow.run(presentURL: presentURL, timeout: timeout)
        let result: JSONValue = [
            "AuthenticationResult": [
                "IdToken": answer["id_token"] ?? .null, "AccessToken": answer["access_token"] ?? .null,
                "RefreshToken": answer["refresh_token"] ?? .null, "ExpiresIn": answer["expires_in"] ?? 3600,
            ]
        ]
        let session = try Self.session(from: result, username: "", keepingRefreshToken: nil)
        try await claim(session)
        return (AuthSignInResult(nextStep: .done), SignedInUser(username: session.username, userId: session.userId))
    }

    /// Answers the pending challenge with `response` (the new password, the MFA or OTP code, the
    /// custom answer, or the MFA type chosen).
    func confirmSignIn(response: String, attributes: [AuthUserAttribute]) async throws -> (AuthSignInResult, SignedInUser?) {
        guard let challenge = pending else {
            throw AuthError.invalidState("There is no sign-in challenge to answer.", "Call signIn first; confirmSignIn answers the step it returned.")
        }
        var responses: [String: String] = [:]
        var session = challenge.session
        switch challenge.name {
        case "MFA_SETUP":
            // The first code from the authenticator app proves the secret was stored.
            let verified = try await service.verifySoftwareToken(session: challenge.session ?? "", code: response)
            guard verified["Status"]?.stringValue == "SUCCESS" else {
                throw AuthError.service("The authenticator app's code was not accepted.", "Check the app's clock and enter a fresh code.")
            }
            session = verified["Session"]?.stringValue ?? session
        case "NEW_PASSWORD_REQUIRED":
            responses["NEW_PASSWORD"] = response
            for attribute in attributes { responses["userAttributes.\(attribute.key.rawValue)"] = attribute.value }
        case "SMS_MFA": responses["SMS_MFA_CODE"] = response
        case "SOFTWARE_TOKEN_MFA": responses["SOFTWARE_TOKEN_MFA_CODE"] = response
        case "EMAIL_OTP": responses["EMAIL_OTP_CODE"] = response
        case "SMS_OTP": responses["SMS_OTP_CODE"] = response
        case "SELECT_CHALLENGE":
            return try await selectFirstFactor(response, challenge: challenge)
        case "SELECT_MFA_TYPE": responses["ANSWER"] = MFAType(rawValue: response)?.rawValue ?? response
        default: responses["ANSWER"] = response
        }
        let answer = try await service.respondToAuthChallenge(
            name: challenge.name, session: session, responses: responses, username: challenge.username)
        return try await handle(answer, username: challenge.username)
    }

    private static func mfaTypes(_ list: String?) -> AllowedMFATypes {
        guard let list, let data = list.data(using: .utf8), let names = try? JSONDecoder().decode([String].self, from: data) else { return [] }
        return Set(names.compactMap(MFAType.init(rawValue:)))
    }

    /// A stored session from an answer's `AuthenticationResult` (a refresh keeps the old refresh
    /// token when Cognito sends none).
    static func session(from answer: JSONValue, username: String, keepingRefreshToken: String?) throws -> StoredSession {
        guard let result = answer["AuthenticationResult"], let idToken = result["IdToken"]?.stringValue,
            let accessToken = result["AccessToken"]?.stringValue,
            let refreshToken = result["RefreshToken"]?.stringValue ?? keepingRefreshToken
        else {
            throw AuthError.service("Cognito's AuthenticationResult lacks a token.", "Check the endpoint.")
        }
        let access = try? JSONWebToken(parsing: accessToken)
        let id = try? JSONWebToken(parsing: idToken)
        let lifetime = result["ExpiresIn"]?.doubleValue ?? 3600
        let expiry = access?.expiresAt ?? Date().addingTimeInterval(lifetime)
        return StoredSession(
            username: access?.string("username") ?? id?.string("cognito:username") ?? username,
            userId: id?.string("sub") ?? access?.string("sub") ?? username,
            idToken: idToken, accessToken: accessToken, refreshToken: refreshToken,
            accessTokenExpiresAt: expiry, refreshTokenExpiresAt: nil)
    }
}
