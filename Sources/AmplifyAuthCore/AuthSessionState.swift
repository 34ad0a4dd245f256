import Amplify
import AmplifyConcurrency
import Observation

/// The server-side counterpart of the session-manager pattern: an `@Observable` object that
/// says who is signed in, kept current only by the Hub's `.auth` events (so it works with any
/// Auth plugin), also readable as an `AsyncSequence` of states.
///
/// It lives on ``AuthStateActor``. Observe it with `withObservationTracking` (on that actor) or
/// iterate ``updates``.
@Observable
@AuthStateActor
public final class AuthSessionState {
    /// Why nobody is signed in.
    public enum SignedOutReason: Sendable, Equatable {
        /// Nobody has signed in yet (in this process).
        case initial
        /// The user signed out.
        case signedOut
        /// The session expired and could not be refreshed.
        case sessionExpired
        /// The user was deleted.
        case userDeleted
    }

    /// Where the session stands.
    public enum Status: Sendable, Equatable, CustomStringConvertible {
        /// Nobody is signed in, and why.
        case signedOut(SignedOutReason)
        /// `username` signed up and must confirm the account.
        case awaitingConfirmation(username: String)
        /// `user` is signed in.
        case signedIn(SignedInUser)

        /// Whether a user is signed in.
        public var isSignedIn: Bool { if case .signedIn = self { true } else { false } }

        /// "signed in as alice", "awaiting confirmation of alice", "signed out (sessionExpired)".
        public var description: String {
            switch self {
            case .signedOut(let reason): "signed out (\(reason))"
            case .awaitingConfirmation(let username): "awaiting confirmation of \(username)"
            case .signedIn(let user): "signed in as \(user.username)"
            }
        }
    }

    /// The current status.
    public private(set) var status: Status = .signedOut(.initial)

    @ObservationIgnored private var subscribers: [Int: AsyncStream<Status>.Continuation] = [:]
    @ObservationIgnored private var nextSubscriber = 0
    /// The task that applies the Hub's events (set once, by `init`).
    @ObservationIgnored private let consumer = Locked<Task<Void, Never>?>(nil)

    /// Starts following the `.auth` channel of `hub` (Amplify's by default). Events dispatched
    /// after this returns are applied in order.
    public nonisolated init(hub: (any HubCategoryBehavior)? = nil) {
        let events = (hub ?? Amplify.Hub.plugin).events(on: .auth, isIncluded: nil, bufferingPolicy: .unbounded)
        let task = Task { @AuthStateActor [weak self] in
            for await payload in events {
                guard let self else { return }
                self.apply(payload)
            }
        }
        consumer.withLock { $0 = task }
    }

    /// Every status from now on (starting with the current one), until the Hub resets or the
    /// iteration ends.
    public var updates: AsyncStream<Status> {
        let (stream, continuation) = AsyncStream<Status>.makeStream(bufferingPolicy: .unbounded)
        let id = nextSubscriber
        nextSubscriber += 1
        subscribers[id] = continuation
        continuation.yield(status)
        continuation.onTermination = { [weak self] _ in
            Task { @AuthStateActor in self?.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Stops following the Hub, waits for the last event to be applied, and ends every
    /// ``updates`` sequence.
    public func stop() async {
        let task = consumer.withLock { $0 }
        task?.cancel()
        await task?.value
        for continuation in subscribers.values { continuation.finish() }
        subscribers.removeAll()
    }

    /// Applies one `.auth` event.
    func apply(_ payload: HubPayload) {
        typealias Names = HubPayload.EventName.Auth
        // A server context's or the store's users are not the process-wide session.
        guard AuthEventData.isProcessWide(payload) else { return }
        let next: Status?
        switch payload.eventName {
        case Names.signedIn:
            next = (payload.data as? SignedInUser).map(Status.signedIn)
        case Names.signedOut:
            next = .signedOut(.signedOut)
        case Names.sessionExpired:
            next = .signedOut(.sessionExpired)
        case Names.userDeleted:
            next = .signedOut(.userDeleted)
        case Names.signUpAPI:
            if case .success(let result)? = payload.data as? Result<AuthSignUpResult, AuthError>, !result.isSignUpComplete,
               let username = payload.context as? String {
                next = .awaitingConfirmation(username: username)
            } else {
                next = nil
            }
        case Names.confirmSignUpAPI:
            if case .success = payload.data as? Result<AuthSignUpResult, AuthError>, case .awaitingConfirmation = status {
                next = .signedOut(.initial)
            } else {
                next = nil
            }
        default:
            next = nil
        }
        guard let next, next != status else { return }
        status = next
        for continuation in subscribers.values { continuation.yield(next) }
    }
}
