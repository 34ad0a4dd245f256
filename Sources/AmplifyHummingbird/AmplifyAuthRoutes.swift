#if AmplifyHummingbird
    import AmplifyAuthCore
    import HTTPTypes
    import Hummingbird

    extension Router {
        /// Adds the server-owned sign-in routes (`AuthRoutes`: sign-in, sign-up, the callbacks,
        /// sign-out, and the local pool's pages) to this router, for `GET` and `POST`.
        ///
        ///     let routes = try AuthRoutes(plugin: authPlugin, configuration: .init(origin: "https://app.example.com"))
        ///     router.addAuthRoutes(routes)
        ///
        /// A form body over 16 KiB is refused (413) before it is read whole.
        @discardableResult
        public func addAuthRoutes(_ routes: AuthRoutes) -> Self {
            for route in AuthRoutes.Route.allCases {
                let path = RouterPath(routes.path(route))
                get(path) { request, _ in try await Self.answer(routes, request) }
                post(path) { request, _ in try await Self.answer(routes, request) }
            }
            return self
        }

        /// The answer of `routes` to `request`.
        static func answer(_ routes: AuthRoutes, _ request: Request) async throws -> Response {
            var form: [String: String] = [:]
            if request.method == .post {
                let body = try await request.body.collect(upTo: 16 * 1024)
                if request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true {
                    form = AuthRouteRequest.formFields(String(buffer: body))
                }
            }
            let fetchSite = HTTPField.Name("Sec-Fetch-Site").flatMap { request.headers[$0] }
            let routeRequest = AuthRouteRequest(
                method: request.method.rawValue, path: request.uri.path, query: AuthRouteRequest.formFields(request.uri.query ?? ""), form: form,
                cookies: request.headers[values: .cookie], origin: request.headers[.origin], fetchSite: fetchSite)
            guard let answer = await routes.handle(routeRequest) else { throw HTTPError(.notFound) }
            var headers = HTTPFields()
            for (name, value) in answer.headers {
                if let field = HTTPField.Name(name) { headers.append(HTTPField(name: field, value: value)) }
            }
            for cookie in answer.setCookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
            return Response(
                status: HTTPResponse.Status(code: answer.status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: answer.html)))
        }
    }
#endif
