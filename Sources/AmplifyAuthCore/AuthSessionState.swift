import Amplify
import AmplifyConcurrency
import Observation

/// The server-side counterpart of the session-manager pattern: an `@Observable` object that
/// says who is signed in (process-wide, or one user's server sessions, with ``heldUsers`` the set
/// of users whose sessions the server holds), kept current only by the Hub's `.auth` events (so it works with any
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

    /// A user signed in in a session the server holds (``AuthSessionStore``).
    public struct HeldUser: Sendable, Hashable {
        /// The name the user signs in with.
        public let username: String
        /// The user's `sub`.
        public let sub: String
        /// The pool (``AuthTenant/id``).
        public let tenant: String
    }

    /// The current status: of the process-wide session, or of the one user named at `init`.
    public private(set) var status: Status = .signedOut(.initial)

    /// The users whose sessions the server holds, kept current by their events (`signedIn` adds
    /// one; `signedOut`, `sessionExpired` and `userDeleted` remove it).
    public private(set) var heldUsers: Set<HeldUser> = []

    /// The one user whose server-context and held sessions the status follows (`nil`: the
    /// process-wide session).
    @ObservationIgnored private nonisolated let followed: String?

    @ObservationIgnored private var subscribers: [Int: AsyncStream<Status>.Continuation] = [:]
    @ObservationIgnored private var nextSubscriber = 0
    /// The task that applies the Hub's events (set once, by `init`).
    @ObservationIgnored private let consumer = Locked<Task<Void, Never>?>(nil)

    /// Starts following the `.auth` channel of `hub` (Amplify's by default). Events dispatched
    /// after this returns are applied in order.
    ///
    /// With `username`, the status follows that user's sessions in server contexts and the
    /// session store (events whose ``AuthUserEvent`` names them) instead of the process-wide one.
    public nonisolated init(hub: (any HubCategoryBehavior)? = nil, following username: String? = nil) {
        followed = username
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
        if !AuthEventData.isProcessWide(payload), let user = AuthEventData.user(in: payload) {
            applyUser(payload.eventName, user)
            return
        }
        // The process-wide session's events; not followed when one user is.
        guard followed == nil else { return }
        if let reason = Self.endReason(payload.eventName) {
            change(to: .signedOut(reason))
            return
        }
        let next: Status?
        switch payload.eventName {
        case Names.signedIn:
            next = (payload.data as? SignedInUser).map(Status.signedIn)
        case Names.signUpAPI:
            if case .success(let result)? = payload.data as? Result<AuthSignUpResult, AuthError>, !result.isSignUpComplete,
                let username = payload.context as? String
            {
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
        change(to: next)
    }

    /// A context's or the store's event: the held users, and the followed user's status.
    private func applyUser(_ event: String, _ user: AuthUserEvent) {
        typealias Names = HubPayload.EventName.Auth
        let held = HeldUser(username: user.username, sub: user.sub, tenant: user.tenant)
        let next: Status?
        if event == Names.signedIn {
            if user.scope == .held { heldUsers.insert(held) }
            next = .signedIn(SignedInUser(username: user.username, userId: user.sub))
        } else {
            next = Self.endReason(event).map(Status.signedOut)
        }
        if user.scope == .held, next?.isSignedIn == false {
            heldUsers = heldUsers.filter { $0.username != user.username || $0.tenant != user.tenant }
        }
        guard let followed, user.username == followed else { return }
        change(to: next)
    }

    /// Why a session ended, for the events that end one.
    private static func endReason(_ event: String) -> SignedOutReason? {
        typealias Names = HubPayload.EventName.Auth
        switch event {
        case Names.signedOut: return .signedOut
        case Names.sessionExpired: return .sessionExpired
        case Names.userDeleted: return .userDeleted
        default: return nil
        }
    }

    private func change(to next: Status?) {
        guard let next, next != status else { return }
        status = next
        for continuation in subscribers.values { continuation.yield(next) }
    }
}
