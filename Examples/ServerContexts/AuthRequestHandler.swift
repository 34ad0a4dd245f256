import Amplify
import AmplifyAuthCore
import Foundation

/// A request as a server framework hands it over: method, path, headers (a name may repeat —
/// HTTP/2 sends several `Cookie` headers) and a JSON body.
struct Request: Sendable {
    var method: String
    var path: String
    var headers: [(name: String, value: String)]
    var body: JSONValue

    /// Every value of the header `name` (case-insensitive).
    func values(of name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }
}

/// A response: status, headers (`Set-Cookie` repeats), JSON body.
struct Response: Sendable {
    var status: Int
    var headers: [(name: String, value: String)] = []
    var body: JSONValue
}

/// Request handling for a server shared with an Amplify JS front end: each request's user comes
/// from its `Authorization: Bearer` header or Amplify JS's cookies, the handler runs inside that
/// user's server context (so it calls `Amplify.Auth` as if the user were signed in process-wide),
/// and refreshed tokens go back as `Set-Cookie` headers Amplify JS reads.
struct AuthRequestHandler: Sendable {
    let plugin: any AuthServerContextPlugin

    func handle(_ request: Request) async -> Response {
        let context: AuthServerContext
        do {
            if let authorization = request.values(of: "Authorization").first {
                context = try await plugin.serverContext(authorization: authorization)
            } else {
                context = try await plugin.serverContext(cookieHeaders: request.values(of: "Cookie"))
            }
        } catch let error as any AmplifyError {
            // Refused before any handler code runs: tampered, expired, foreign, or malformed.
            return Response(status: 401, body: ["error": .string(error.errorDescription)])
        } catch {
            return Response(status: 401, body: ["error": .string("\(error)")])
        }
        var response = await context.run { await route(request) }
        for cookie in await context.responseCookies() { response.headers.append((name: "Set-Cookie", value: cookie)) }
        return response
    }

    /// The application's routes: plain `Amplify.Auth` calls, acting as the request's user.
    private func route(_ request: Request) async -> Response {
        do {
            switch (request.method, request.path) {
            case ("POST", "/sign-in"):
                let result = try await Amplify.Auth.signIn(
                    username: request.body["username"]?.stringValue ?? "", password: request.body["password"]?.stringValue ?? "")
                return Response(status: 200, body: ["signedIn": .boolean(result.isSignedIn)])
            case ("GET", "/me"):
                let user = try await Amplify.Auth.getCurrentUser()
                let attributes = try await Amplify.Auth.fetchUserAttributes()
                var body: [String: JSONValue] = ["username": .string(user.username), "sub": .string(user.userId)]
                for attribute in attributes where attribute.key == .email { body["email"] = .string(attribute.value) }
                return Response(status: 200, body: .object(body))
            case ("POST", "/refresh"):
                let session = try await Amplify.Auth.fetchAuthSession(options: .forceRefresh())
                return Response(status: 200, body: ["signedIn": .boolean(session.isSignedIn)])
            case ("POST", "/sign-out"):
                _ = await Amplify.Auth.signOut()
                return Response(status: 200, body: ["signedOut": true])
            default:
                return Response(status: 404, body: ["error": "no such route"])
            }
        } catch let error as AuthError {
            return Response(status: 403, body: ["error": .string(error.errorDescription)])
        } catch {
            return Response(status: 500, body: ["error": .string("\(error)")])
        }
    }
}
