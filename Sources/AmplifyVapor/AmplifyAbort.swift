#if AmplifyVapor
    import AmplifyAuthCore
    import Vapor

    /// A refused request as Vapor answers it: the `AuthChallenge`'s status and message, with its
    /// `WWW-Authenticate`, `Retry-After` and `Cache-Control: no-store` headers. Thrown by
    /// ``AmplifyAuthMiddleware``, ``AmplifyAccessMiddleware`` and `req.amplify.requireUser(_:)`.
    public struct AmplifyAbort: AbortError, Sendable {
        /// Why the request was refused.
        public let challenge: AuthChallenge

        /// The error for `challenge`.
        public init(_ challenge: AuthChallenge) {
            self.challenge = challenge
        }

        /// The challenge's message.
        public var reason: String { challenge.message }

        /// The challenge's status.
        public var status: HTTPResponseStatus { HTTPResponseStatus(statusCode: challenge.status) }

        /// `WWW-Authenticate`, `Retry-After`, `Cache-Control: no-store`.
        public var headers: HTTPHeaders { HTTPHeaders(challenge.headers.map { ($0.name, $0.value) }) }
    }
#endif
