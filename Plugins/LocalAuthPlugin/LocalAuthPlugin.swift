import Amplify
import AmplifyAuthCore
import AmplifyConcurrency
import AmplifyEventLoop
import Foundation

/// The embedded Auth plugin (key `localAuthPlugin`): a user pool in SQLite on this machine, with
/// scrypt password hashes, confirmation and reset codes, lockout, ES256 tokens that rotate and
/// can be revoked, and sessions that survive a restart and expire on their own.
///
/// Every call dispatches its `Auth.*API` result on the Hub's `.auth` channel (data
/// `Result<Success, AuthError>`, context the username where the call names one), and the
/// lifecycle events `Auth.signedIn` (data `SignedInUser`), `Auth.signedOut`,
/// `Auth.userDeleted` and `Auth.sessionExpired` (data the username). `sessionExpired` fires
/// once, from a timer at access-token expiry, when the refresh token no longer works.
public final class LocalAuthPlugin: AuthServerContextPlugin {
    /// The plugin's key in the configuration file.
    public static let pluginKey: PluginKey = "localAuthPlugin"

    private let delivery: (any CodeDelivery)?
    private let hub: (any HubCategoryBehavior)?
    private let eventLoop: EventLoop?
    private let engineSlot = Locked<LocalAuthEngine?>(nil)
    /// The background restore started by `configure`; `reset` waits for it.
    private let restoring = Locked<Task<Void, Never>?>(nil)
    private let events: AuthEventReporter
    /// Sign-ups that may end in `autoSignIn()`.
    let autoSignInTickets = AutoSignInTickets()
    /// Bumped by every sign-out, global sign-out, password reset and deleted user of the pool in
    /// this process (see `AuthServerContextPlugin.revocations`).
    public let revocations = RevocationCounter()

    /// A plugin that delivers codes with `delivery` (default: the pool's outbox, read with
    /// ``outbox(for:)`` or `amplify auth outbox`), dispatches on `hub` and runs its expiry timer on
    /// `eventLoop` (default: Amplify's own; tests pass their own).
    public init(delivery: (any CodeDelivery)? = nil, hub: (any HubCategoryBehavior)? = nil, eventLoop: EventLoop? = nil) {
        self.delivery = delivery
        self.hub = hub
        self.eventLoop = eventLoop
        events = AuthEventReporter(pluginKey: Self.pluginKey, hub: hub) { error, _ in
            AuthError.unknown("The local user pool failed: \(error)", error)
        }
    }

    /// `"localAuthPlugin"`.
    public var key: PluginKey { Self.pluginKey }

    /// Reads the plugin's block (see ``LocalAuthConfiguration``). When a saved session exists, it
    /// restores it in the background and arms its expiry timer; otherwise the pool opens (and its
    /// files are created) on the first call.
    /// - Throws: `ConfigurationValueError` for a bad value.
    /// See `AuthServerContextPlugin.observeRevocations(_:)`: each revocation the pool records here
    /// (every instance reads the pool's files, so `.poolChanged` says enough).
    public func observeRevocations(_ observer: @escaping @Sendable (SessionRevocation) -> Void) {
        revocations.observe { observer(.poolChanged) }
    }

    /// See `AuthServerContextPlugin.applyRevocation(_:)`: tokens verified before are verified
    /// again (against the pool, which has the revocation).
    public func applyRevocation(_ revocation: SessionRevocation) {
        revocations.bumpFromElsewhere()
    }

    public func configure(using configuration: Any?) throws {
        let settings = try LocalAuthConfiguration(json: configuration as? JSONValue)
        let engine = LocalAuthEngine(
            configuration: settings, delivery: delivery, revocations: revocations, pluginKey: key,
            hub: { [hub] in hub ?? Amplify.Hub.plugin }, eventLoop: { [eventLoop] in try eventLoop ?? Amplify.eventLoop() })
        engineSlot.withLock { $0 = engine }
        if FileManager.default.fileExists(atPath: settings.credentialStorePath) {
            let task = Task { _ = try? await engine.prepare() }
            restoring.withLock { $0 = task }
        }
    }

    /// Waits for a restore under way, cancels the expiry timer and closes the stores.
    public func reset() async {
        if let task = restoring.withLock({ slot in
            defer { slot = nil }
            return slot
        }) {
            await task.value
        }
        let engine = engineSlot.withLock { slot in
            defer { slot = nil }
            return slot
        }
        await engine?.shutdown()
    }

    /// The local pool's engine, behind the account calls of `AuthEngineBackedPlugin`.
    /// - Throws: `AuthError.configuration(_:_:_:)` before `configure`.
    public func accountEngine() throws -> LocalAuthEngine { try engine() }

    /// Where the plugin reports on the Hub.
    public var authEvents: AuthEventReporter { events }

    func engine() throws -> LocalAuthEngine {
        guard let engine = engineSlot.withLock({ $0 }) else {
            throw AuthError.configuration("The local auth plugin is not configured.", "Call Amplify.configure() first.")
        }
        return engine
    }

    /// Signs a user in; an unconfirmed user gets `.confirmSignUp` as the next step, a user with
    /// MFA on the step of their preferred (or only) method, or `.continueSignInWithMFASelection`
    /// when several are on and none is preferred (see ``confirmSignIn(challengeResponse:options:)``).
    /// With `AuthFlowType.userAuth(preferredFirstFactor:)` (as `options.pluginOptions`, bare or in
    /// any `AuthFlowTypeSignInOptions` such as the Cognito plugin's `AWSAuthSignInOptions`)
    /// the sign-in is choice-based: the password, or a one-time code by email or text message
    /// (`.confirmSignInWithOTP`), preferred or chosen at `.continueSignInWithFirstFactorSelection`.
    /// - Throws: `AuthError/notAuthorized(_:_:_:)` for a wrong password or a locked account,
    ///   `AuthError/invalidState(_:_:_:)` if someone is signed in.
    public func signIn(username: String?, password: String?, options: AuthSignInRequest.Options?) async throws -> AuthSignInResult {
        let flow = (options?.pluginOptions as? any AuthFlowTypeSignInOptions)?.authFlowType ?? (options?.pluginOptions as? AuthFlowType)
        let (result, user) = try await events.report(HubPayload.EventName.Auth.signInAPI, username: username, published: \.0) {
            try await engine().signIn(username: username, password: password, flow: flow)
        }
        if let user { events.lifecycle(HubPayload.EventName.Auth.signedIn, user) }
        return result
    }

    /// Answers the step `signIn` returned: the MFA method chosen at
    /// `.continueSignInWithMFASelection` (`MFAType.challengeResponse`), the first factor chosen at
    /// `.continueSignInWithFirstFactorSelection` (`AuthFactorType.challengeResponse`), the password
    /// at `.confirmSignInWithPassword`, or the code at `.confirmSignInWithTOTPCode` (from the
    /// authenticator app), `.confirmSignInWithOTP` (sent by email or text) or
    /// `.confirmSignInWithSMSMFACode` (sent to the phone number); codes go through the plugin's
    /// delivery (the outbox by default). Dispatches `Auth.signedIn` when it completes.
    /// - Throws: `AuthError/invalidState(_:_:_:)` with no sign-in waiting,
    ///   `AuthError/validation(_:_:_:_:)` for a wrong code (it may be tried again) or a method not
    ///   offered, `AuthError/notAuthorized(_:_:_:)` once `codeMaxAttempts` codes were wrong (sign
    ///   in again).
    public func confirmSignIn(challengeResponse: String, options: AuthConfirmSignInRequest.Options?) async throws -> AuthSignInResult {
        let (result, user) = try await events.report(HubPayload.EventName.Auth.confirmSignInAPI, username: nil, published: \.0) {
            try await engine().confirmSignIn(response: challengeResponse)
        }
        if let user { events.lifecycle(HubPayload.EventName.Auth.signedIn, user) }
        return result
    }

    /// Signs out (revoking the session's refresh token, or with `globalSignOut` every one of the
    /// user's tokens). Never throws.
    public func signOut(options: AuthSignOutRequest.Options?) async -> any AuthSignOutResult {
        guard let engine = try? engine() else {
            return LocalSignOutResult(signedOutLocally: false, revokedTokens: false, message: "The plugin is not configured.")
        }
        let (result, username) = await engine.signOut(global: options?.globalSignOut ?? false)
        events.dispatch(HubPayload.EventName.Auth.signOutAPI, username: username, data: Result<LocalSignOutResult, AuthError>.success(result))
        if let username { events.lifecycle(HubPayload.EventName.Auth.signedOut, username) }
        return result
    }

    /// Updates one attribute. - Throws: `AuthError`.
    public func update(userAttribute: AuthUserAttribute, options: AuthUpdateUserAttributeRequest.Options?) async throws -> AuthUpdateAttributeResult {
        try await events.report(HubPayload.EventName.Auth.updateUserAttributeAPI) {
            try await engine().update([userAttribute])
            return AuthUpdateAttributeResult(isUpdated: true, nextStep: .done)
        }
    }

    /// Updates several attributes. - Throws: `AuthError`.
    public func update(userAttributes: [AuthUserAttribute], options: AuthUpdateUserAttributesRequest.Options?) async throws -> [AuthUserAttributeKey:
        AuthUpdateAttributeResult]
    {
        try await events.report(HubPayload.EventName.Auth.updateUserAttributesAPI) {
            try await engine().update(userAttributes)
            return Dictionary(
                userAttributes.map { ($0.key, AuthUpdateAttributeResult(isUpdated: true, nextStep: .done)) }, uniquingKeysWith: { last, _ in last })
        }
    }

    /// The codes the default delivery kept (all, or one user's), oldest first.
    /// - Throws: `AuthError` if the pool cannot be read.
    public func outbox(for username: String? = nil) async throws -> [CodeMessage] {
        try await engine().outbox(username: username)
    }

    /// The pool's public signing key as a JWKS document, for services that verify its tokens.
    /// - Throws: `AuthError` if the pool cannot be opened.
    public func jwks() async throws -> JSONValue {
        try await engine().jwks()
    }

    // MARK: Server contexts

    /// The local pool (its folder and app client), which this plugin's server contexts are bound to.
    /// - Throws: `AuthError.configuration(_:_:_:)` before `configure`.
    public func contextTenant() throws -> AuthTenant { try engine().tenant }

    /// Checks a request's tokens against the pool (signature, issuer, client, use, revocation, the
    /// ID token's `sub`); an expired access token is accepted only with a refresh token, exchanged
    /// at once. See `AuthServerContextPlugin`.
    /// - Throws: `AuthError.notAuthorized(_:_:_:)` with the reason, `AuthError.sessionExpired(_:_:_:)`
    ///   when the refresh token is refused.
    public func verifiedSession(_ tokens: AuthRequestTokens) async throws -> StoredSession {
        try await engine().verifiedRequest(tokens).session
    }

    /// ``verifiedSession(_:)`` with the claims the pool read (see `AuthServerContextPlugin`).
    /// - Throws: as ``verifiedSession(_:)``.
    public func verifiedRequest(_ tokens: AuthRequestTokens) async throws -> VerifiedRequest {
        try await engine().verifiedRequest(tokens)
    }

    /// The pool's refresh-token exchange (rotating the refresh token), for contexts and the store.
    /// - Throws: `AuthError.configuration(_:_:_:)` before `configure`.
    public func sessionRefresh() throws -> AuthSessionKeeper.Refresh { try engine().contextRefresh() }
}
