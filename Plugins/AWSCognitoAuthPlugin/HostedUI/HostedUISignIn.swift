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
package struct HostedUISignIn {
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
            return Attempt(
                verifier: verifier, challenge: Base64URL.encode(Digest.sha256(Array(verifier.utf8))),
                state: Base64URL.encode(try Digest.randomBytes(16)))
        }
    }

    /// The domain as a base URL: `https://<WebDomain>`, or the value itself when it has a scheme
    /// (a stand-in).
    var base: String { Self.base(of: oauth.webDomain) }

    /// `webDomain` as a base URL: `https://<WebDomain>`, or the value itself when it has a scheme.
    static func base(of webDomain: String) -> String {
        let domain = webDomain.hasSuffix("/") ? String(webDomain.dropLast()) : webDomain
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
        // The redirect comes back to the address the URI names: ::1 for [::1], both loopback
        // addresses for localhost (a browser may resolve it to either).
        let hosts =
            switch host {
            case "::1", "[::1]": ["::1"]
            case "localhost": ["127.0.0.1", "::1"]
            default: ["127.0.0.1"]
            }
        let attempt = try Attempt.make()
        let receiver: LoopbackRedirectReceiver
        do {
            // Only a redirect carrying this attempt's state is taken; a forged one is refused and
            // the listener keeps waiting for the real one.
            receiver = try await LoopbackRedirectReceiver.start(
                loop: loop, hosts: hosts, port: redirect.port ?? 80, path: redirect.path.isEmpty ? "/" : redirect.path,
                page: "<!doctype html><title>Signed in</title><p>Signed in. You can close this window and return to the terminal.</p>",
                expectedState: attempt.state)
        } catch {
            throw AuthError.service(
                "The loopback listener for \(oauth.signInRedirectURI) could not start: \(error)",
                "Free the port, or choose another in the redirect URI.", error)
        }
        do {
            presentURL(try authorizeURL(attempt, redirectURI: oauth.signInRedirectURI))
            let target: String
            do {
                target = try await receiver.next(timeout: timeout)
            } catch is LoopbackRedirectReceiver.TimedOut {
                throw AuthError.service("No sign-in came back within \(timeout).", "Open the URL in a browser and finish signing in, or try again.")
            }
            let code = try Self.code(from: target, expectedState: attempt.state)
            let answer = try await Self.exchange(
                code: code, verifier: attempt.verifier, redirectURI: oauth.signInRedirectURI, oauth: oauth, clientSecret: clientSecret, http: http)
            await receiver.close()
            return answer
        } catch {
            await receiver.close()
            throw error
        }
    }

    /// The authorization code of a redirect target, after checking its state (the listener
    /// already did; checked again here so the code never relies on it). An `error=` redirect
    /// counts only with the right state; its texts are made printable before they reach a message.
    package static func code(from target: String, expectedState: String) throws -> String {
        // Form-encoded: `+` is a space.
        let query = target.split(separator: "?", maxSplits: 1).dropFirst().first.map { $0.replacingOccurrences(of: "+", with: "%20") } ?? ""
        let items = URLComponents(string: "http://127.0.0.1/?" + query)?.queryItems ?? []
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        guard let state = value("state"), Digest.constantTimeEquals(Array(state.utf8), Array(expectedState.utf8)) else {
            throw AuthError.notAuthorized(
                "The redirect's state does not match this sign-in (a forged or stale redirect).", "Start the sign-in again.")
        }
        if let error = value("error") {
            throw AuthError.notAuthorized(
                "The hosted UI refused the sign-in: \(printable(error))\(value("error_description").map { " (\(printable($0)))" } ?? "").",
                "Sign in again in the browser.")
        }
        guard let code = value("code"), !code.isEmpty else {
            throw AuthError.notAuthorized("The redirect carries no authorization code.", "Start the sign-in again.")
        }
        return code
    }

    /// `text` safe to print on a terminal: control characters (C0, DEL, C1 such as CSI), format
    /// characters (bidi overrides, zero-width joiners) and line or paragraph separators become
    /// `\u{…}` escapes, and it is cut to `limit` characters.
    package static func printable(_ text: String, limit: Int = 200) -> String {
        var shown = ""
        for scalar in text.unicodeScalars.prefix(limit) {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .surrogate, .unassigned:
                shown += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default:
                shown.unicodeScalars.append(scalar)
            }
        }
        return text.unicodeScalars.count > limit ? shown + "…" : shown
    }

    /// POST `/oauth2/token` with the code, the PKCE verifier and the redirect URI the code was
    /// issued for (and the client secret as Basic authentication when the app client has one).
    /// - Throws: `AuthError.notAuthorized(_:_:_:)` when the code is refused, `.service` when the
    ///   endpoint is unreachable or answers without tokens.
    static func exchange(
        code: String, verifier: String, redirectURI: String, oauth: CognitoAuthConfiguration.OAuth, clientSecret: String?, http: HTTPClient
    ) async throws -> JSONValue {
        guard let url = URL(string: base(of: oauth.webDomain) + "/oauth2/token") else {
            throw AuthError.configuration("The hosted UI domain '\(oauth.webDomain)' makes no URL.", "Check Auth.Default.OAuth.WebDomain.")
        }
        let form = [
            ("grant_type", "authorization_code"), ("client_id", oauth.appClientId), ("code", code),
            ("redirect_uri", redirectURI), ("code_verifier", verifier),
        ].map { "\($0.0)=\(URIEncoding.encode($0.1))" }.joined(separator: "&")
        var headers: [(name: String, value: String)] = [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")]
        if let clientSecret {
            headers.append(("Authorization", "Basic " + Data("\(oauth.appClientId):\(clientSecret)".utf8).base64EncodedString()))
        }
        let response: HTTPResponse
        do {
            response = try await http.send(
                HTTPRequest(method: "POST", url: url, headers: headers, body: .bytes(Array(form.utf8)), timeout: .seconds(30)))
        } catch {
            throw AuthError.service(
                "The hosted UI's token endpoint could not be reached: \(error)", "Check the network and Auth.Default.OAuth.WebDomain.", error)
        }
        let answer = (try? JSONValue(parsing: response.body)) ?? .null
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
