import AWSPluginsCore
import Amplify
import AmplifyAuthCore
import AmplifyCrypto
import AmplifyEventLoop
import Foundation

/// The hosted UI's authorization-code flow with PKCE (RFC 7636) for a server or a terminal: the
/// sign-in URL goes to `presentURL` (print it, or open a browser), the browser comes back to a
/// loopback listener (RFC 8252) at the configured `SignInRedirectURI`, and the code is exchanged
/// at the domain's `/oauth2/token` for the user pool tokens.
struct HostedUISignIn {
    let oauth: CognitoAuthConfiguration.OAuth
    let clientSecret: String?
    let http: HTTPClient
    let loop: EventLoop

    /// One attempt's secrets.
    struct Attempt: Equatable {
        /// The PKCE verifier (43 characters of base64url).
        let verifier: String
        /// `base64url(SHA-256(verifier))`.
        let challenge: String
        /// The anti-forgery state echoed by the redirect.
        let state: String

        static func make() throws -> Attempt {
            let verifier = Base64URL.encode(try Digest.randomBytes(32))
            return Attempt(verifier: verifier, challenge: Base64URL.encode(Digest.sha256(Array(verifier.utf8))), state: Base64URL.encode(try Digest.randomBytes(16)))
        }
    }

    /// The domain as a base URL: `https://<WebDomain>`, or the value itself when it has a scheme
    /// (a stand-in).
    var base: String {
        let domain = oauth.webDomain.hasSuffix("/") ? String(oauth.webDomain.dropLast()) : oauth.webDomain
        return domain.contains("://") ? domain : "https://" + domain
    }

    /// The `/oauth2/authorize` URL for `attempt`.
    func authorizeURL(_ attempt: Attempt, redirectURI: String) throws -> URL {
        guard var components = URLComponents(string: base + "/oauth2/authorize") else {
            throw AuthError.configuration("The hosted UI domain '\(oauth.webDomain)' makes no URL.", "Check Auth.Default.OAuth.WebDomain.")
        }
        components.queryItems = [
            URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "client_id", value: oauth.appClientId),
            URLQueryItem(name: "redirect_uri", value: redirectURI), URLQueryItem(name: "scope", value: oauth.scopes.joined(separator: " ")),
            URLQueryItem(name: "state", value: attempt.state), URLQueryItem(name: "code_challenge", value: attempt.challenge),
            URLQueryItem(name: "code_challenge_method", value: "S256"),
        ]
        guard let url = components.url else { throw AuthError.configuration("The hosted UI URL could not be built.", "Check the OAuth settings.") }
        return url
    }

    /// Runs the flow and returns the token endpoint's answer (`id_token`, `access_token`,
    /// `refresh_token`, `expires_in`).
    /// - Throws: ``Amplify/AuthError``: `.configuration` for a redirect URI that is not loopback
    ///   http, `.service` when the listener cannot start, `.notAuthorized` when the user or the
    ///   hosted UI refused (`error=access_denied`), the state does not match, or the code is
    ///   refused; `.service` for no redirect within `timeout`.
    func run(presentURL: @Sendable (URL) -> Void, timeout: Duration) async throws -> JSONValue {
        guard let redirect = URLComponents(string: oauth.signInRedirectURI), redirect.scheme == "http",
              let host = redirect.host, ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host)
        else {
            throw AuthError.configuration(
                "The sign-in redirect URI '\(oauth.signInRedirectURI)' is not a loopback http URL, so this process cannot receive it.",
                "Add http://127.0.0.1:<port>/callback to the app client's callback URLs and to Auth.Default.OAuth.SignInRedirectURI.")
        }
        let receiver: LoopbackRedirectReceiver
        do {
            receiver = try await LoopbackRedirectReceiver.start(
                loop: loop, port: redirect.port ?? 80, path: redirect.path.isEmpty ? "/" : redirect.path,
                page: "<!doctype html><title>Signed in</title><p>Signed in. You can close this window and return to the terminal.</p>")
        } catch {
            throw AuthError.service("The loopback listener for \(oauth.signInRedirectURI) could not start: \(error)", "Free the port, or choose another in the redirect URI.", error)
        }
        do {
            let attempt = try Attempt.make()
            presentURL(try authorizeURL(attempt, redirectURI: oauth.signInRedirectURI))
            let target: String
            do {
                target = try await receiver.next(timeout: timeout)
            } catch is LoopbackRedirectReceiver.TimedOut {
                throw AuthError.service("No sign-in came back within \(timeout).", "Open the URL in a browser and finish signing in, or try again.")
            }
            let code = try Self.code(from: target, expectedState: attempt.state)
            let answer = try await exchange(code: code, verifier: attempt.verifier)
            await receiver.close()
            return answer
        } catch {
            await receiver.close()
            throw error
        }
    }

    /// The authorization code of a redirect target, after checking its state.
    static func code(from target: String, expectedState: String) throws -> String {
        let items = URLComponents(string: "http://127.0.0.1" + target)?.queryItems ?? []
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        if let error = value("error") {
            throw AuthError.notAuthorized(
                "The hosted UI refused the sign-in: \(error)\(value("error_description").map { " (\($0))" } ?? "").", "Sign in again in the browser.")
        }
        guard let state = value("state"), Digest.constantTimeEquals(Array(state.utf8), Array(expectedState.utf8)) else {
            throw AuthError.notAuthorized("The redirect's state does not match this sign-in (a forged or stale redirect).", "Start the sign-in again.")
        }
        guard let code = value("code"), !code.isEmpty else {
            throw AuthError.notAuthorized("The redirect carries no authorization code.", "Start the sign-in again.")
        }
        return code
    }

    /// POST `/oauth2/token` with the code and the PKCE verifier (and the client secret as Basic
    /// authentication when the app client has one).
    private func exchange(code: String, verifier: String) async throws -> JSONValue {
        guard let url = URL(string: base + "/oauth2/token") else {
            throw AuthError.configuration("The hosted UI domain '\(oauth.webDomain)' makes no URL.", "Check Auth.Default.OAuth.WebDomain.")
        }
        let form = [
            ("grant_type", "authorization_code"), ("client_id", oauth.appClientId), ("code", code),
            ("redirect_uri", oauth.signInRedirectURI), ("code_verifier", verifier),
        ].map { "\($0.0)=\(URIEncoding.encode($0.1))" }.joined(separator: "&")
        var headers: [(name: String, value: String)] = [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")]
        if let clientSecret {
            headers.append(("Authorization", "Basic " + Data("\(oauth.appClientId):\(clientSecret)".utf8).base64EncodedString()))
        }
        let response: HTTPResponse
        do {
            response = try await http.send(HTTPRequest(method: "POST", url: url, headers: headers, body: .bytes(Array(form.utf8)), timeout: .seconds(30)))
        } catch {
            throw AuthError.service("The hosted UI's token endpoint could not be reached: \(error)", "Check the network and Auth.Default.OAuth.WebDomain.", error)
        }
        let answer = (try? JSONDecoder().decode(JSONValue.self, from: Data(response.body))) ?? .null
        guard response.status == 200 else {
            let reason = answer["error"]?.stringValue ?? "HTTP \(response.status)"
            throw AuthError.notAuthorized("The hosted UI refused the authorization code: \(reason).", "Start the sign-in again.")
        }
        guard answer["id_token"]?.stringValue != nil, answer["access_token"]?.stringValue != nil else {
            throw AuthError.service("The token endpoint answered without tokens.", "Check that the app client allows the openid scope.")
        }
        return answer
    }
}
