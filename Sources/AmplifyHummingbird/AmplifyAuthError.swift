#if AmplifyHummingbird
    import AmplifyAuthCore
    import HTTPTypes
    import Hummingbird

    /// A refused request as Hummingbird answers it: the `AuthChallenge`'s status, its
    /// `WWW-Authenticate`, `Retry-After` and `Cache-Control: no-store` headers, and a JSON body
    /// `{"error": …, "message": …}`. Thrown by ``AmplifyAuthMiddleware``, ``AmplifyAccessMiddleware``
    /// and `requireUser(_:)`.
    public struct AmplifyAuthError: HTTPResponseError, Sendable {
        /// Why the request was refused.
        public let challenge: AuthChallenge

        /// The error for `challenge`.
        public init(_ challenge: AuthChallenge) {
            self.challenge = challenge
        }

        /// The challenge's status.
        public var status: HTTPResponse.Status { HTTPResponse.Status(code: challenge.status) }

        /// The answer: status, headers and JSON body.
        public func response(from request: Request, context: some RequestContext) throws -> Response {
            var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
            for (name, value) in challenge.headers {
                if let field = HTTPField.Name(name) { headers.append(HTTPField(name: field, value: value)) }
            }
            return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: challenge.jsonBody)))
        }
    }
#endif
