import Amplify
import AmplifyCrypto

/// The routes with a hosted UI: the authorization-code flow with PKCE, run by the server.
extension AuthRoutes {
    /// The proof cookies of a sign-in under way (Amplify JS's names).
    static let pkceCookie = "com.amplify.server_auth.pkce"
    static let stateCookie = "com.amplify.server_auth.state"

    func handleHosted(_ route: Route, _ request: AuthRouteRequest, _ hosted: HostedUIEndpoint) async -> AuthRouteResponse {
        switch route {
        case .signIn, .signUp:
            guard request.method == "GET" else { return page(status: 405, heading: "Not allowed", message: "Sign-in starts with a GET.") }
            return startSignIn(request, hosted, signUp: route == .signUp)
        case .signInCallback:
            guard request.method == "GET" else { return page(status: 405, heading: "Not allowed", message: "The callback is a GET.") }
            return await finishSignIn(request, hosted)
        case .signOut:
            guard let (csrf, csrfCookie) = csrfToken(request) else {
                return page(status: 503, heading: "Try again", message: "The server could not make a form token. Try again shortly.")
            }
            if request.method == "POST", let refusal = csrfRefusal(request) { return refusal }
            if request.method == "GET" && request.fetchSite != "same-origin" { return signOutPage(csrf: csrf, setCookies: csrfCookie) }
            let cookies = await signOutCookies(request)
            let callback = configuration.origin + path(.signOutCallback)
            guard hosted.signOutRedirectURIs.contains(callback) else {
                // The hosted UI cannot send the browser back here: its own session stays, ours ends.
                return redirect(to: configuration.afterSignOut, cookies: cookies)
            }
            let logout = hosted.base + "/logout?client_id=" + URIComponent.encode(hosted.clientId) + "&logout_uri=" + URIComponent.encode(callback)
            return redirect(to: logout, cookies: cookies)
        case .signOutCallback:
            return redirect(to: configuration.afterSignOut, cookies: clearingTokenCookies(request))
        case .confirm, .forgotPassword, .resetPassword:
            return page(status: 404, heading: "Not found", message: "The hosted sign-in pages handle this.", links: [(.signIn, "Sign in")])
        }
    }

    /// `sign-in` / `sign-up`: the proof cookies, and a redirect to the hosted UI.
    func startSignIn(_ request: AuthRouteRequest, _ hosted: HostedUIEndpoint, signUp: Bool) -> AuthRouteResponse {
        let target = request.query["redirect"] ?? configuration.afterSignIn
        guard Self.localPath(target) != nil else {
            return page(status: 400, heading: "Refused", message: "The page to return to must be a path on this site.")
        }
        let provider = request.query["identity_provider"]
        if let provider, !Self.isProviderName(provider) {
            return page(status: 400, heading: "Refused", message: "The identity provider's name is not valid.")
        }
        let callback = configuration.origin + path(.signInCallback)
        guard hosted.signInRedirectURIs.contains(callback) else {
            return page(
                status: 500, heading: "Sign-in is not configured",
                message: "Add \(callback) to the app client's callback URLs and to the configuration's sign-in redirect URIs.")
        }
        guard let verifier = Self.randomToken(), let state = Self.randomToken(), let nonce = Self.randomToken() else {
            return page(status: 503, heading: "Try again", message: "The server could not start a sign-in. Try again shortly.")
        }
        var query = [
            ("response_type", "code"), ("client_id", hosted.clientId), ("redirect_uri", callback), ("scope", hosted.scopes.joined(separator: " ")),
            ("state", state), ("code_challenge", Base64URL.encode(Digest.sha256(Array(verifier.utf8)))), ("code_challenge_method", "S256"),
            ("nonce", nonce),
        ]
        if let provider { query.append(("identity_provider", provider)) }
        let location =
            hosted.base + (signUp ? "/signup" : "/oauth2/authorize") + "?"
            + query.map { "\($0.0)=\(URIComponent.encode($0.1))" }.joined(separator: "&")
        // The state cookie holds the state, the nonce and where to go afterwards (a path: no spaces).
        return redirect(
            to: location, cookies: [proofCookie(Self.pkceCookie, verifier), proofCookie(Self.stateCookie, "\(state) \(nonce) \(target)")])
    }

    /// `sign-in-callback`: the state checked against its cookie, the code exchanged with the
    /// verifier, the ID token's nonce checked, the token cookies set.
    func finishSignIn(_ request: AuthRouteRequest, _ hosted: HostedUIEndpoint) async -> AuthRouteResponse {
        let cleared = [proofCookie(Self.pkceCookie, nil), proofCookie(Self.stateCookie, nil)]
        func refuse(_ status: Int, _ message: String) -> AuthRouteResponse {
            page(status: status, heading: "Sign-in failed", message: message, links: [(.signIn, "Sign in again")], setCookies: cleared)
        }
        guard let verifier = Self.cookie(Self.pkceCookie, in: request), let proof = Self.cookie(Self.stateCookie, in: request) else {
            return refuse(400, "This sign-in was not started in this browser, or it took more than 5 minutes.")
        }
        let parts = proof.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let sent = request.query["state"], Self.same(sent, parts[0]), let target = Self.localPath(parts[2]) else {
            return refuse(400, "The sign-in's state does not match (a forged or replayed answer).")
        }
        if let error = request.query["error"] {
            let description = request.query["error_description"].map { ": \(PrintableText($0, limit: 200))" } ?? ""
            return refuse(401, "The sign-in was refused (\(PrintableText(error, limit: 60))\(description)).")
        }
        guard let code = request.query["code"], !code.isEmpty, let plugin = plugin as? any HostedUIServerSignIn else {
            return refuse(400, "The answer carries no authorization code.")
        }
        // Read before the exchange: a revocation while it runs makes the cached entry stale at once.
        let revocations = plugin.revocations.current
        let verified: VerifiedRequest
        do {
            verified = try await plugin.exchangeAuthorizationCode(code, verifier: verifier, redirectURI: configuration.origin + path(.signInCallback))
        } catch {
            return refuse(Self.status(error), Self.userMessage(error))
        }
        let session = verified.session
        guard let idClaims = try? JSONWebToken(parsing: session.idToken).claims, let nonce = idClaims["nonce"]?.stringValue,
            Self.same(nonce, parts[1])
        else {
            return refuse(401, "The ID token was not issued for this sign-in (its nonce does not match).")
        }
        guard let tenant = try? plugin.contextTenant() else {
            return refuse(500, "The server's user pool is not configured.")
        }
        // The tokens were just verified: the user's first request need not verify them again.
        configuration.cache?.insert(
            AuthenticatedUser.entry(
                accessClaims: verified.accessClaims, username: session.username, sub: session.userId, expiresAt: verified.expiresAt),
            for: VerifiedTokenCache.Key(accessToken: session.accessToken, idToken: session.idToken), tenant: tenant, revocations: revocations)
        return landing(
            on: target, cookies: cleared + AmplifyJSCookies.setCookies(clientId: tenant.clientId, session: session, attributes: tokenCookies))
    }

    /// Whether `name` can be an identity provider's name (Cognito's: 1–32 characters of
    /// letters, digits, `_`, `-`, `.`; Google, SignInWithApple, Facebook, LoginWithAmazon, OIDC and SAML names).
    static func isProviderName(_ name: String) -> Bool {
        (1...40).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || [UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: ".")].contains(byte)
            }
    }
}
