#if AmplifyVapor
    import AmplifyAuthCore
    import Vapor

    extension RoutesBuilder {
        /// Adds the server-owned sign-in routes (`AuthRoutes`: sign-in, sign-up, the callbacks,
        /// sign-out, and the local pool's pages), for `GET` and `POST`.
        ///
        ///     let routes = try AuthRoutes(plugin: authPlugin, configuration: .init(origin: "https://app.example.com"))
        ///     app.addAuthRoutes(routes)
        ///
        /// A form body over 16 KiB is refused (413).
        public func addAuthRoutes(_ routes: AuthRoutes) {
            for route in AuthRoutes.Route.allCases {
                let path = routes.path(route).split(separator: "/").map { PathComponent(stringLiteral: String($0)) }
                on(.GET, path) { request in try await amplifyAuthRouteAnswer(routes, request) }
                on(.POST, path, body: .collect(maxSize: "16kb")) { request in try await amplifyAuthRouteAnswer(routes, request) }
            }
        }
    }

    /// The answer of `routes` to `request`.
    func amplifyAuthRouteAnswer(_ routes: AuthRoutes, _ request: Request) async throws -> Response {
        // `.collect(maxSize:)` bounds a streamed body; one handed over whole is checked here.
        guard (request.body.data?.readableBytes ?? 0) <= 16 * 1024 else { throw Abort(.payloadTooLarge) }
        var form: [String: String] = [:]
        if request.method == .POST, request.headers.contentType == .urlEncodedForm, let body = request.body.string {
            form = AuthRouteRequest.formFields(body)
        }
        let routeRequest = AuthRouteRequest(
            method: request.method.rawValue, path: request.url.path, query: AuthRouteRequest.formFields(request.url.query ?? ""), form: form,
            cookies: request.headers[.cookie], origin: request.headers.first(name: .origin), fetchSite: request.headers.first(name: "Sec-Fetch-Site"))
        guard let answer = await routes.handle(routeRequest) else { throw Abort(.notFound) }
        var headers = HTTPHeaders()
        for (name, value) in answer.headers { headers.add(name: name, value: value) }
        for cookie in answer.setCookies { headers.add(name: .setCookie, value: cookie) }
        return Response(status: HTTPResponseStatus(statusCode: answer.status), headers: headers, body: .init(string: answer.html))
    }
#endif
