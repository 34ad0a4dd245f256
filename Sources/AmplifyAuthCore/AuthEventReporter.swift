import Amplify

/// How the Auth plugins of this package report on the Hub's `.auth` channel: each call's
/// `Auth.*API` event (data `Result<Success, AuthError>`, context the username when the call names
/// one) and the lifecycle events (`Auth.signedIn`, `Auth.signedOut`, ...). Events are dispatched
/// from the calling task; the Hub delivers them on its loop.
public struct AuthEventReporter: Sendable {
    private let hub: @Sendable () -> any HubCategoryBehavior
    private let mapError: @Sendable (any Error, String) -> AuthError

    /// A reporter on `hub` (asked at each dispatch, so a reset Hub is followed); `mapError` turns
    /// an error a call threw into the `AuthError` it reports (given the event name).
    public init(hub: @escaping @Sendable () -> any HubCategoryBehavior, mapError: @escaping @Sendable (any Error, String) -> AuthError) {
        self.hub = hub
        self.mapError = mapError
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
        hub().dispatch(to: .auth, payload: HubPayload(eventName: event, context: username, data: result.map(published)))
        return try result.get()
    }

    /// Dispatches `event` with an outcome that cannot fail (`Auth.signOutAPI`).
    public func dispatch(_ event: String, username: String?, data: any Sendable) {
        hub().dispatch(to: .auth, payload: HubPayload(eventName: event, context: username, data: data))
    }

    /// Dispatches the lifecycle `event` with `data` (the user or the username).
    public func lifecycle(_ event: String, _ data: any Sendable) {
        hub().dispatch(to: .auth, payload: HubPayload(eventName: event, data: data))
    }
}
