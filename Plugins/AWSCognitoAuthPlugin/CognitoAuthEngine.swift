import AWSPluginsCore
import Amplify
import AmplifyAuthCore
import AmplifyCrypto
import AmplifyEventLoop
import Foundation

/// The Cognito plugin's state: the user pool service, the shared session keeper (credential
/// store, refresh timer, `Auth.sessionExpired`), the sign-in challenge under way and the identity
/// pool's credentials. One actor, so every call sees one consistent session.
public actor CognitoAuthEngine: AuthAccountEngine {
    /// A sign-in waiting for `confirmSignIn`.
    struct PendingChallenge: Sendable {
        let name: String
        let session: String?
        let username: String
        let parameters: [String: String]
    }

    let configuration: CognitoAuthConfiguration
    let service: CognitoUserPoolService
    let keeper: AuthSessionKeeper
    private let pluginKey: String
    private let http: HTTPClient
    private let loop: @Sendable () throws -> EventLoop
    private var opened: Task<Void, any Error>?
    /// Sign-in challenges under way, one per session holder, so a user's `confirmSignIn` in one
    /// context can never answer another's challenge. Cognito's challenge sessions last 3 minutes.
    private var challenges = PendingSignIns<PendingChallenge>(lifetime: challengeLifetime)
    /// Cognito's challenge sessions last 3 minutes; older entries are dropped.
    static let challengeLifetime: TimeInterval = 180
    /// Confirmed sign-ups `autoSignIn()` may complete, one per session holder.
    var autoSignIns = PendingSignIns<AutoSignInTicket>(lifetime: challengeLifetime)
    /// SignUp's sessions, by username, for the ConfirmSignUp that follows.
    var signUpSessions: [String: (session: String, at: Date)] = [:]

    /// The challenge of the session this call acts on.
    var pending: PendingChallenge? {
        get {
            guard let holder = try? sessions() else { return nil }
            return challenges.challenge(for: holder)
        }
        set {
            guard let holder = try? sessions() else { return }
            challenges.set(newValue, for: holder)
        }
    }
    private let identity: CognitoIdentityCredentialsProvider?
    /// Makes an identity-pool provider presenting the given logins (a context user's).
    let makeIdentity: (@Sendable (_ identityId: String?, _ logins: @escaping @Sendable () async throws -> [String: String]) -> CognitoIdentityCredentialsProvider)?
    /// The process-wide federation (`federateToIdentityPool`), if one is in effect.
    var federation: CognitoFederation?
    /// Each context user's identity-pool provider (their identity id and credentials, cached), by tenant user.
    private var contextIdentities: [String: CognitoIdentityCredentialsProvider] = [:]
    /// The guest identity of contexts with nobody signed in.
    private var contextGuest: CognitoIdentityCredentialsProvider?
    /// The most context users whose identity-pool credentials are cached at once.
    static let contextIdentityCacheLimit = 4096
    /// The pool server contexts of this engine are bound to.
    nonisolated let tenant: AuthTenant
    /// The refresh-token exchange (the keeper's, and every context's).
    nonisolated let exchange: AuthSessionKeeper.Refresh
    /// The sessions and users this process signed out: their tokens stay valid by signature
    /// until `exp`, and server contexts refuse them.
    nonisolated let revokedSessions = RevokedSessions()

    init(
        configuration: CognitoAuthConfiguration, http: HTTPClient, pluginKey: String,
        hub: @escaping @Sendable () -> any HubCategoryBehavior, eventLoop: @escaping @Sendable () throws -> EventLoop
    ) {
        self.configuration = configuration
        self.pluginKey = pluginKey
        self.http = http
        self.loop = eventLoop
        let service = CognitoUserPoolService(
            client: AWSJSONClient(
                http: http, endpoint: configuration.userPoolEndpoint, region: configuration.region, signingName: "cognito-idp", options: configuration.http),
            clientId: configuration.appClientId, clientSecret: configuration.appClientSecret)
        self.service = service
        let tenant = AuthTenant(pool: configuration.userPoolId, clientId: configuration.appClientId, issuer: configuration.tokenIssuer)
        self.tenant = tenant
        let exchange: AuthSessionKeeper.Refresh = { current in
            do {
                let device = (try? JSONWebToken(parsing: current.accessToken))?.string("device_key")
                let answer = try await service.refresh(refreshToken: current.refreshToken, username: current.username, deviceKey: device)
                return try Self.session(from: answer, username: current.username, keepingRefreshToken: current.refreshToken)
            } catch AuthError.notAuthorized(let description, _, let underlying) {
                throw AuthError.sessionExpired("The session could not be refreshed: \(description)", "Sign in again.", underlying)
            } catch AuthError.service(let description, _, let underlying as AWSCognitoAuthError) where underlying == .userNotFound {
                throw AuthError.sessionExpired("The session could not be refreshed: \(description)", "Sign in again.", underlying)
            }
        }
        self.exchange = exchange
        let sessions = AuthSessionKeeper(
            pluginKey: pluginKey, refreshLead: configuration.refreshLead, hub: hub, eventLoop: eventLoop, tenant: tenant.id, refresh: exchange)
        let factory = configuration.identityPoolId.map { poolId in
            let client = AWSJSONClient(
                http: http, endpoint: configuration.identityEndpoint, region: configuration.identityPoolRegion, signingName: "cognito-identity",
                options: configuration.http)
            return { @Sendable (identityId: String?, logins: @escaping @Sendable () async throws -> [String: String]) in
                CognitoIdentityCredentialsProvider(client: client, identityPoolId: poolId, identityId: identityId, logins: logins)
            }
        }
        makeIdentity = factory
        let provider = "cognito-idp.\(configuration.region).amazonaws.com/\(configuration.userPoolId)"
        identity = factory.map { make in
            make(nil) {
                // The signed-in user's ID token (refreshed when expired), or a guest.
                guard await sessions.current != nil, let session = try? await sessions.validSession() else { return [:] }
                return [provider: session.idToken]
            }
        }
        keeper = sessions
    }

    // MARK: Set-up

    /// Opens the credential store and restores a saved session, once.
    func prepare() async throws {
        if opened == nil {
            let keeper = keeper
            let path = configuration.credentialStorePath
            opened = Task { try await keeper.open(storeAt: path) }
        }
        do {
            try await opened?.value
        } catch {
            opened = nil
            throw AuthError.configuration(
                "The credential store \(configuration.credentialStorePath) could not be opened: \(error).",
                "Check that its folder exists and can be written, or set credentialStore in the plugin's block.", error)
        }
    }

    func shutdown() async {
        _ = try? await opened?.value
        await keeper.shutdown()
    }

    // MARK: Sign-up

    /// See `AuthAccountEngine`. SignUp's `Session` is kept for the confirmation, so that it can
    /// end in `autoSignIn()`; a user the pool confirms at once gets `.completeAutoSignIn`.
    public func signUp(username: String, password: String?, attributes: [AuthUserAttribute]) async throws -> AuthSignUpResult {
        guard let password, !password.isEmpty else {
            throw AuthError.validation("password", "Cognito needs a password to sign up.", "Pass a password.")
        }
        let answer = try await service.signUp(username: username, password: password, attributes: attributes)
        let sub = answer["UserSub"]?.stringValue
        let session = answer["Session"]?.stringValue
        if answer["UserConfirmed"]?.booleanValue == true {
            guard let session, !session.isEmpty else { return AuthSignUpResult(.done, userID: sub) }
            try keepAutoSignIn(username: username, session: session)
            return AuthSignUpResult(.completeAutoSignIn(session), userID: sub)
        }
        keepSignUpSession(session, for: username)
        let details = CognitoUserPoolService.deliveryDetails(answer["CodeDeliveryDetails"])
        return AuthSignUpResult(.confirmUser(details, nil, sub), userID: sub)
    }

    /// See `AuthAccountEngine`. Sends the sign-up's `Session` when this engine made it; when
    /// ConfirmSignUp answers with a `Session`, the next step is `.completeAutoSignIn` (as
    /// amplify-swift's), for `autoSignIn()`.
    public func confirmSignUp(username: String, code: String) async throws -> AuthSignUpResult {
        let answer = try await service.confirmSignUp(username: username, code: code, session: signUpSession(for: username))
        signUpSessions[username] = nil
        guard let session = answer["Session"]?.stringValue, !session.isEmpty else { return AuthSignUpResult(.done) }
        try keepAutoSignIn(username: username, session: session)
        return AuthSignUpResult(.completeAutoSignIn(session))
    }

    /// See `AuthAccountEngine`.
    public func resendSignUpCode(username: String) async throws -> AuthCodeDeliveryDetails {
        CognitoUserPoolService.deliveryDetails(try await service.resendConfirmationCode(username: username)["CodeDeliveryDetails"])
    }

    // MARK: Sign-in

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
            throw AuthError.service("Cognito's PASSWORD_VERIFIER challenge lacks SALT, SRP_B, SECRET_BLOCK or USER_ID_FOR_SRP.", "Check the endpoint.")
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
                "The hosted UI is not configured.", "Add Auth.Default.OAuth (WebDomain, AppClientId, SignInRedirectURI, Scopes) to the awsCognitoAuthPlugin block.")
        }
        if let session = await (try sessions()).current {
            throw AuthError.invalidState("'\(session.username)' is already signed in.", "Sign out first.")
        }
        try requireNotFederated()
        pending = nil
        let flow = HostedUISignIn(oauth: oauth, clientSecret: configuration.appClientSecret, http: http, loop: try loop())
        let answer = try await flow.run(presentURL: presentURL, timeout: timeout)
        let result: JSONValue = ["AuthenticationResult": [
            "IdToken": answer["id_token"] ?? .null, "AccessToken": answer["access_token"] ?? .null,
            "RefreshToken": answer["refresh_token"] ?? .null, "ExpiresIn": answer["expires_in"] ?? 3600,
        ]]
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

    // MARK: Signed-in calls

    /// Runs `call` with a usable access token. When Cognito refuses the token (revoked by a
    /// global sign-out elsewhere, say), the session is refreshed once; if that is refused too the
    /// session ends with `Auth.sessionExpired` and the call throws `sessionExpired`.
    func withAccessToken<T: Sendable>(_ call: @Sendable (String) async throws -> T) async throws -> T {
        try await prepare()
        let holder = try sessions()
        let session = try await holder.validSession()
        do {
            return try await call(session.accessToken)
        } catch AuthError.notAuthorized {
            let renewed = try await holder.refresh()
            return try await call(renewed.accessToken)
        }
    }

    /// See `AuthAccountEngine`.
    public func currentUser() async throws -> AWSCognitoAuthUser {
        try await prepare()
        let holder = try sessions()
        guard let session = await holder.current else {
            if await holder.hasExpired { throw AuthError.sessionExpired("The session has expired.", "Sign in again.") }
            throw AuthError.signedOut("Nobody is signed in.", "Sign in first.")
        }
        return AWSCognitoAuthUser(username: session.username, userId: session.userId)
    }

    /// See `AuthAccountEngine`.
    public func attributes() async throws -> [AuthUserAttribute] {
        let service = service
        let answer = try await withAccessToken { try await service.getUser(accessToken: $0) }
        return (answer["UserAttributes"]?.asArray ?? []).compactMap { item in
            guard let name = item["Name"]?.stringValue, let value = item["Value"]?.stringValue else { return nil }
            return AuthUserAttribute(AuthUserAttributeKey(rawValue: name), value: value)
        }
    }

    func update(_ attributes: [AuthUserAttribute]) async throws -> [AuthUserAttributeKey: AuthUpdateAttributeResult] {
        let service = service
        let answer = try await withAccessToken { try await service.updateUserAttributes(accessToken: $0, attributes: attributes) }
        var results: [AuthUserAttributeKey: AuthUpdateAttributeResult] = [:]
        for attribute in attributes { results[attribute.key] = AuthUpdateAttributeResult(isUpdated: true, nextStep: .done) }
        // An attribute that needs verification (a new email) is pending until its code is confirmed.
        for details in answer["CodeDeliveryDetailsList"]?.asArray ?? [] {
            guard let name = details["AttributeName"]?.stringValue else { continue }
            results[AuthUserAttributeKey(rawValue: name)] = AuthUpdateAttributeResult(
                isUpdated: false, nextStep: .confirmAttributeWithCode(CognitoUserPoolService.deliveryDetails(details), nil))
        }
        return results
    }

    /// See `AuthAccountEngine`.
    public func changePassword(from old: String, to new: String) async throws {
        let service = service
        try await withAccessToken { try await service.changePassword(accessToken: $0, old: old, new: new) }
    }

    /// See `AuthAccountEngine`.
    public func resetPassword(username: String) async throws -> AuthResetPasswordResult {
        let answer = try await service.forgotPassword(username: username)
        return AuthResetPasswordResult(
            isPasswordReset: false, nextStep: .confirmResetPasswordWithCode(CognitoUserPoolService.deliveryDetails(answer["CodeDeliveryDetails"]), nil))
    }

    /// See `AuthAccountEngine`.
    public func confirmResetPassword(username: String, newPassword: String, code: String) async throws {
        try await service.confirmForgotPassword(username: username, code: code, password: newPassword)
    }

    /// Signs out: revokes the refresh token (or, `global`, signs out every session of the user),
    /// then forgets the session whatever Cognito said. Returns the result and the username.
    func signOut(global: Bool) async -> (AWSCognitoSignOutResult, String?) {
        pending = nil
        guard (try? await prepare()) != nil, let holder = try? sessions(), let current = await holder.current else {
            return (.failed(AuthError.signedOut("Nobody was signed in.", "Sign in first.")), nil)
        }
        var revokeError: AuthError?
        var globalError: AuthError?
        if global {
            do {
                let service = service
                try await withAccessToken { try await service.globalSignOut(accessToken: $0) }
            } catch {
                globalError = AuthError.cognito(error, operation: "GlobalSignOut")
            }
        }
        if !global || globalError != nil {
            do {
                try await service.revokeToken(refreshToken: (await holder.current ?? current).refreshToken)
            } catch {
                revokeError = AuthError.cognito(error, operation: "RevokeToken")
            }
        }
        rememberSignOut(current, everywhere: global)
        await holder.end()
        if revokeError == nil && globalError == nil { return (.complete, current.username) }
        return (.partial(revokeTokenError: revokeError, globalSignOutError: globalError), current.username)
    }

    /// See `AuthAccountEngine`.
    public func deleteUser() async throws -> String {
        let service = service
        try await withAccessToken { try await service.deleteUser(accessToken: $0) }
        let holder = try sessions()
        let ending = await holder.current
        if let ending { rememberSignOut(ending, everywhere: true) }
        await holder.end()
        return ending?.username ?? ""
    }

    /// Refuses `session`'s tokens (and, `everywhere`, every token of its user issued until now)
    /// in this process's server contexts: Cognito's revocation does not reach tokens already
    /// out, which stay valid by their signature until they expire.
    private nonisolated func rememberSignOut(_ session: StoredSession, everywhere: Bool) {
        if everywhere, !session.userId.isEmpty { revokedSessions.revokeUser(sub: session.userId) }
        for token in [session.accessToken, session.idToken] {
            if let parsed = try? JSONWebToken(parsing: token) { revokedSessions.revokeSession(claims: parsed.claims) }
        }
    }

    // MARK: Session

    /// See `AuthAccountEngine`.
    public func fetchAuthSession(forceRefresh: Bool) async throws -> AWSAuthCognitoSession {
        try await prepare()
        var tokens: Result<AWSCognitoUserPoolTokens, AuthError> = .failure(AuthError.signedOut("Nobody is signed in.", "Sign in first."))
        var signedIn = false
        let holder = try sessions()
        if await holder.current != nil {
            do {
                let session = try await holder.validSession(forceRefresh: forceRefresh)
                signedIn = true
                tokens = .success(AWSCognitoUserPoolTokens(
                    idToken: session.idToken, accessToken: session.accessToken, refreshToken: session.refreshToken,
                    expiration: session.accessTokenExpiresAt))
            } catch let error as AuthError {
                if case .sessionExpired = error {} else { signedIn = await holder.current != nil }
                tokens = .failure(error)
            }
        } else if await holder.hasExpired {
            tokens = .failure(AuthError.sessionExpired("The session has expired.", "Sign in again."))
        }
        let sub = tokens.flatMap { token -> Result<String, AuthError> in
            guard let sub = (try? JSONWebToken(parsing: token.idToken))?.string("sub") else {
                return .failure(AuthError.service("The ID token has no sub.", "Sign in again."))
            }
            return .success(sub)
        }
        let (identityId, credentials) = await identityPoolCredentials()
        if !signedIn, let federated = federatedSession(identityId: identityId, credentials: credentials) { return federated }
        return AWSAuthCognitoSession(
            isSignedIn: signedIn, userSubResult: sub, userPoolTokensResult: tokens, identityIdResult: identityId, awsCredentialsResult: credentials)
    }

    /// The identity pool's id and credentials (authenticated when signed in, guest otherwise).
    func identityPoolCredentials() async -> (Result<String, AuthError>, Result<AWSCredentials, AuthError>) {
        guard let identity = currentIdentityProvider() else {
            let missing = AuthError.configuration(
                "No identity pool is configured.", "Add CredentialsProvider.CognitoIdentity.Default.PoolId to the configuration file.")
            return (.failure(missing), .failure(missing))
        }
        do {
            let credentials = try await identity.credentials()
            let id = await identity.currentIdentityId ?? ""
            return (.success(id), .success(credentials))
        } catch {
            let failure = AuthError.cognito(error, operation: "GetCredentialsForIdentity")
            return (.failure(failure), .failure(failure))
        }
    }

    /// The identity pool's provider, for the other AWS plugins: the current server context user's
    /// (inside a context of this pool), the process-wide one's otherwise.
    var identityProvider: CognitoIdentityCredentialsProvider? { currentIdentityProvider() }

    /// The session this call acts on: the server context's, or the process-wide keeper's.
    /// - Throws: `AuthError.invalidState(_:_:_:)` in a context of another pool.
    func sessions() throws -> any AuthSessionHolding {
        try AuthServerContext.sessions(for: tenant, processWide: keeper)
    }

    /// The identity-pool provider for the current context's user (made on first use and cached,
    /// up to ``contextIdentityCacheLimit`` users), or the process-wide one outside a context.
    private func currentIdentityProvider() -> CognitoIdentityCredentialsProvider? {
        let context: AuthServerContext?
        do {
            context = try AuthServerContext.current(for: tenant)
        } catch {
            // A context of another pool: none of this pool's identities (not the process-wide one's).
            return nil
        }
        guard let context else { return federation?.provider ?? identity }
        guard let makeIdentity else { return nil }
        guard let user = context.user else {
            // Nobody signed in in the context: a guest, never the process-wide user.
            if let contextGuest { return contextGuest }
            let guest = makeIdentity(nil) { [:] }
            contextGuest = guest
            return guest
        }
        if let cached = contextIdentities[user.userId] { return cached }
        if contextIdentities.count >= Self.contextIdentityCacheLimit { contextIdentities.removeAll(keepingCapacity: true) }
        let session = context.session
        let provider = "cognito-idp.\(configuration.region).amazonaws.com/\(configuration.userPoolId)"
        let made = makeIdentity(nil) {
            guard let current = try? await session.validSession(), !current.idToken.isEmpty else { return [:] }
            return [provider: current.idToken]
        }
        contextIdentities[user.userId] = made
        return made
    }

    // MARK: Server contexts

    /// See `AuthServerContextPlugin.verifiedSession(_:)`: the tokens checked with `verifier`.
    func verifiedSession(_ tokens: AuthRequestTokens, verifier: CognitoTokenVerifier) async throws -> StoredSession {
        var expired = false
        var subject = ""
        var username = tokens.username ?? ""
        var expiresAt = Date()
        let signedOut = AuthError.notAuthorized("The access token is refused: its session was signed out.", "Sign in again.")
        do {
            let access = try await verifier.verify(tokens.accessToken, as: .access)
            guard !revokedSessions.isRevoked(claims: access.claims) else { throw signedOut }
            subject = access.subject
            username = access.username ?? username
            expiresAt = access.expiresAt
        } catch CognitoTokenError.expired {
            // The verifier checks the signature, issuer, use and client before the expiry: the
            // token is genuine, and a refresh token may renew it.
            expired = true
            let parsed = try? JSONWebToken(parsing: tokens.accessToken)
            if let parsed, revokedSessions.isRevoked(claims: parsed.claims) { throw signedOut }
            subject = parsed?.string("sub") ?? ""
            username = parsed?.string("username") ?? username
        } catch let error as CognitoTokenError {
            throw AuthError.notAuthorized("The access token is refused: \(error.description).", "Sign in again.", error)
        }
        if let idToken = tokens.idToken, !expired {
            do {
                let id = try await verifier.verify(idToken, as: .id)
                guard !revokedSessions.isRevoked(claims: id.claims) else {
                    throw AuthError.notAuthorized("The ID token is refused: its session was signed out.", "Sign in again.")
                }
                guard id.subject == subject else {
                    throw AuthError.notAuthorized("The ID token is refused: it belongs to another user than the access token.", "Sign in again.")
                }
            } catch let error as CognitoTokenError {
                throw AuthError.notAuthorized("The ID token is refused: \(error.description).", "Sign in again.", error)
            }
        }
        guard expired else {
            return StoredSession(
                username: username, userId: subject, idToken: tokens.idToken ?? "", accessToken: tokens.accessToken,
                refreshToken: tokens.refreshToken ?? "", accessTokenExpiresAt: expiresAt, refreshTokenExpiresAt: nil)
        }
        guard let refreshToken = tokens.refreshToken, !refreshToken.isEmpty else {
            throw AuthError.notAuthorized("The access token is refused: the token has expired, and no refresh token came with it.", "Sign in again.")
        }
        let renewed = try await exchange(StoredSession(
            username: username, userId: subject, idToken: "", accessToken: tokens.accessToken, refreshToken: refreshToken,
            accessTokenExpiresAt: Date(), refreshTokenExpiresAt: nil))
        guard renewed.userId == subject else {
            throw AuthError.notAuthorized("The refresh token is refused: it belongs to another user than the access token.", "Sign in again.")
        }
        return renewed
    }
}
