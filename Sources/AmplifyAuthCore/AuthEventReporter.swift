import Amplify
import CoreMetrics

/// How the Auth plugins of this package report on the Hub's `.auth` channel: each call's
/// `Auth.*API` event (data `Result<Success, AuthError>`, context the username when the call names
/// one) and the lifecycle events (`Auth.signedIn`, `Auth.signedOut`, ...). Events are dispatched
/// from the calling task; the Hub delivers them on its loop.
///
/// Each call's outcome is also logged at debug level (category "Auth", metadata plugin and
/// operation; the error's description, never a password, code or token), and sign-in calls are
/// counted in `amplify_auth_sign_ins_total` when a metrics backend is bootstrapped.
public struct AuthEventReporter: Sendable {
    private let hub: HubReporter
    private let mapError: @Sendable (any Error, String) -> AuthError
    private let pluginKey: PluginKey
    private let signIns: SignInCounters?

    /// A reporter for the plugin `pluginKey` on `hub` (`nil`: `Amplify.Hub`, looked up at each
    /// dispatch through `HubReporter`, so a reset Hub is followed); `mapError` turns an error a
    /// call threw into the `AuthError` it reports (given the event name). Metrics go to
    /// `metricsFactory` (default: `MetricsSystem.factory`, looked at once, now).
    public init(
        pluginKey: PluginKey = "auth", hub: (any HubCategoryBehavior)?, metricsFactory: (any MetricsFactory)? = nil,
        mapError: @escaping @Sendable (any Error, String) -> AuthError
    ) {
        self.init(pluginKey: pluginKey, reporter: HubReporter(hub: hub), metricsFactory: metricsFactory, mapError: mapError)
    }

    /// A reporter for the plugin `pluginKey` on the Hub `hub` returns (asked at each dispatch).
    /// Prefer the initializer that takes the Hub itself (`nil` for `Amplify.Hub`).
    public init(
        pluginKey: PluginKey = "auth", hub: @escaping @Sendable () -> any HubCategoryBehavior, metricsFactory: (any MetricsFactory)? = nil,
        mapError: @escaping @Sendable (any Error, String) -> AuthError
    ) {
        self.init(pluginKey: pluginKey, reporter: HubReporter(resolving: hub), metricsFactory: metricsFactory, mapError: mapError)
    }

    private init(
        pluginKey: PluginKey, reporter: HubReporter, metricsFactory: (any MetricsFactory)?,
        mapError: @escaping @Sendable (any Error, String) -> AuthError
    ) {
        hub = reporter
        self.mapError = mapError
        self.pluginKey = pluginKey
        signIns = AmplifyMetrics.activeFactory(metricsFactory).map { SignInCounters(pluginKey: pluginKey, factory: $0) }
    }

    /// Runs `call` and dispatches `event` with its result.
    /// - Throws: the call's error, as `AuthError`.
    public func report<T: Sendable>(_ event: String, username: String? = nil, _ call: () async throws -> T) async throws -> T {
        try await report(event, username: username, published: { $0 }, call)
    }

    /// Runs `call` and dispatches `event` with `published(value)` as its success (a call that
    /// returns more than it publishes, such as the signed-in user next to the result).
    /// - Throws: the call's error, as `AuthError`.
    public func report<T: Sendable, Published: Sendable>(
        _ event: String, username: String?, published: (T) -> Published, _ call: () async throws -> T
    ) async throws -> T {
        let result: Result<T, AuthError>
        do {
            result = .success(try await call())
        } catch let error as AuthError {
            result = .failure(error)
        } catch {
            result = .failure(mapError(error, event))
        }
        record(event, result)
        hub.dispatch(to: .auth, payload: HubPayload(eventName: event, context: username, data: result.map(published)))
        return try result.get()
    }

    /// Logs a call's outcome and counts sign-ins.
    private func record<T>(_ event: String, _ result: Result<T, AuthError>) {
        let operation = Self.operation(of: event)
        let metadata = [LogMetadataKey.plugin: pluginKey, LogMetadataKey.operation: operation]
        let log = Amplify.Logging.logger(forCategory: "Auth")
        switch result {
        case .success: log.log(level: .debug, "\(operation) succeeded", metadata: metadata)
        case .failure(let error): log.log(level: .debug, "\(operation) failed: \(error.errorDescription)", metadata: metadata)
        }
        guard let signIns, Self.signInEvents.contains(event) else { return }
        switch result {
        case .success(let value): ((value as? AuthSignInResult)?.isSignedIn ?? true ? signIns.success : signIns.challenge).increment()
        case .failure: signIns.failure.increment()
        }
    }

    /// The calls that sign a user in.
    private static let signInEvents: Set<String> = [
        HubPayload.EventName.Auth.signInAPI, HubPayload.EventName.Auth.confirmSignInAPI, HubPayload.EventName.Auth.webUISignInAPI,
    ]

    /// `Auth.signInAPI` → `signIn`.
    static func operation(of event: String) -> String {
        var name = event.hasPrefix("Auth.") ? String(event.dropFirst(5)) : event
        if name.hasSuffix("API") { name.removeLast(3) }
        return name
    }

    /// Dispatches `event` with an outcome that cannot fail (`Auth.signOutAPI`).
    public func dispatch(_ event: String, username: String?, data: any Sendable) {
        hub.dispatch(to: .auth, payload: HubPayload(eventName: event, context: username, data: data))
    }

    /// Dispatches the lifecycle `event` with `data` (the user or the username), and logs it at
    /// info level.
    ///
    /// Inside a server context the data becomes an ``AuthUserEvent`` naming the context's user
    /// (username and sub), so listeners can tell its events from the process-wide session's.
    public func lifecycle(_ event: String, _ data: any Sendable) {
        Amplify.Logging.logger(forCategory: "Auth").log(level: .info, event, metadata: [LogMetadataKey.plugin: pluginKey])
        hub.dispatch(to: .auth, payload: HubPayload(eventName: event, data: Self.contextual(data)))
    }

    /// `data` as the current server context's ``AuthUserEvent`` (unchanged outside a context, or
    /// when it already is one).
    static func contextual(_ data: any Sendable) -> any Sendable {
        guard let context = AuthServerContext.current, !(data is AuthUserEvent) else { return data }
        let signedIn = data as? SignedInUser
        let known = context.user
        let username = signedIn?.username ?? (data as? String) ?? known?.username ?? ""
        let sub = signedIn?.userId ?? (known?.username == username ? known?.userId : nil) ?? ""
        return AuthUserEvent(username: username, sub: sub, scope: context.session.scope, tenant: context.tenant.id)
    }
}

/// `amplify_auth_sign_ins_total` for one plugin, by result.
private struct SignInCounters: Sendable {
    let success: Counter
    let challenge: Counter
    let failure: Counter

    init(pluginKey: PluginKey, factory: any MetricsFactory) {
        func counter(_ result: String) -> Counter {
            Counter(label: AmplifyMetrics.authSignIns, dimensions: [("plugin", pluginKey), ("result", result)], factory: factory)
        }
        success = counter("success")
        challenge = counter("challenge")
        failure = counter("failure")
    }
}
