import Amplify

/// The routes without a hosted UI (the embedded local pool): the server renders the pages and
/// calls the plugin's sign-up, confirm, sign-in and reset inside a fresh server context.
extension AuthRoutes {
    func handleLocal(_ route: Route, _ request: AuthRouteRequest) async -> AuthRouteResponse {
        guard let (csrf, csrfCookie) = csrfToken(request) else {
            return page(status: 503, heading: "Try again", message: "The server could not make a form token. Try again shortly.")
        }
        if request.method == "POST", let refusal = csrfRefusal(request) { return refusal }
        let get = request.method == "GET"
        let username = (get ? request.query["username"] : request.form["username"]).map(Self.trimmed) ?? ""
        switch route {
        case .signIn:
            let target = get ? request.query["redirect"] : request.form["redirect"]
            guard target == nil || target.flatMap(Self.localPath) != nil else {
                return page(status: 400, heading: "Refused", message: "The page to return to must be a path on this site.")
            }
            if get {
                return signInPage(
                    csrf: csrf, username: username, target: target, notice: Self.notices[request.query["notice"] ?? ""], setCookies: csrfCookie)
            }
            return await signIn(username: username, password: request.form["password"] ?? "", target: target ?? configuration.afterSignIn, csrf: csrf)
        case .signUp:
            if get { return signUpPage(csrf: csrf, setCookies: csrfCookie) }
            return await signUp(
                username: username, email: Self.trimmed(request.form["email"] ?? ""), password: request.form["password"] ?? "", csrf: csrf)
        case .confirm:
            if get { return await confirmPage(csrf: csrf, username: username, setCookies: csrfCookie) }
            return await confirm(username: username, code: Self.trimmed(request.form["code"] ?? ""), csrf: csrf)
        case .forgotPassword:
            if get { return forgotPasswordPage(csrf: csrf, setCookies: csrfCookie) }
            return await forgotPassword(username: username, csrf: csrf)
        case .resetPassword:
            guard !get else { return forgotPasswordPage(csrf: csrf, setCookies: csrfCookie) }
            return await resetPassword(
                username: username, code: Self.trimmed(request.form["code"] ?? ""), password: request.form["password"] ?? "", csrf: csrf)
        case .signOut:
            // A link on one of the app's own pages signs out at once; anything else (another
            // site's link, a typed URL) gets a button, so no other site can sign a user out.
            if get && request.fetchSite != "same-origin" { return signOutPage(csrf: csrf, setCookies: csrfCookie) }
            return redirect(to: configuration.afterSignOut, cookies: await signOutCookies(request))
        case .signInCallback, .signOutCallback:
            return page(status: 404, heading: "Not found", message: "This server signs users in with its own pages.", links: [(.signIn, "Sign in")])
        }
    }

    /// The notices a redirect may ask the sign-in page to show (never text from the request).
    static let notices = [
        "confirmed": "Your account is confirmed. Sign in.", "reset": "Your password is changed. Sign in with the new one.",
    ]

    static func trimmed(_ text: String) -> String { String(Substring(text).trimmingOWS()) }

    // MARK: Sign-in

    func signInPage(
        csrf: String, username: String = "", target: String?, notice: String? = nil, error: String? = nil, status: Int = 200,
        setCookies: [String] = []
    )
        -> AuthRouteResponse
    {
        page(
            status: status, heading: "Sign in", message: error ?? notice ?? "", isError: error != nil,
            form: (
                .signIn,
                [
                    Field(name: "username", label: "Username", type: "text", value: username, autocomplete: "username"),
                    Field(name: "password", label: "Password", type: "password", autocomplete: "current-password"),
                ], "Sign in"
            ), hidden: target.map { ["redirect": $0] } ?? [:], csrf: csrf,
            links: [(.signUp, "Create an account"), (.forgotPassword, "Forgot your password?")],
            setCookies: setCookies)
    }

    func signIn(username: String, password: String, target: String, csrf: String) async -> AuthRouteResponse {
        guard !username.isEmpty, !password.isEmpty else {
            return signInPage(csrf: csrf, username: username, target: target, error: "Enter your username and password.", status: 400)
        }
        let plugin = self.plugin
        let context: AuthServerContext
        do {
            context = try plugin.emptyServerContext()
        } catch {
            return page(status: 500, heading: "Sign-in is not configured", message: "The server's user pool is not configured.")
        }
        do {
            let result = try await context.run { try await plugin.signIn(username: username, password: password, options: nil) }
            switch result.nextStep {
            case .done:
                return redirect(to: target, cookies: await context.responseCookies(tokenCookies))
            case .confirmSignUp:
                return redirect(to: path(.confirm) + "?username=" + URIComponent.encode(username))
            case .resetPassword:
                return forgotPasswordPage(csrf: csrf, message: "Your password must be reset first.")
            default:
                return page(
                    status: 501, heading: "Another step is needed",
                    message: "This account needs a second step (\(result.nextStep)) that these pages do not offer. Sign in from the app instead.")
            }
        } catch {
            return signInPage(csrf: csrf, username: username, target: target, error: Self.userMessage(error), status: Self.status(error))
        }
    }

    // MARK: Sign-up and confirmation

    func signUpPage(csrf: String, username: String = "", email: String = "", error: String? = nil, status: Int = 200, setCookies: [String] = [])
        -> AuthRouteResponse
    {
        page(
            status: status, heading: "Create an account", message: error ?? "",
            form: (
                .signUp,
                [
                    Field(name: "username", label: "Username", type: "text", value: username, autocomplete: "username"),
                    Field(name: "email", label: "Email", type: "email", value: email, autocomplete: "email"),
                    Field(name: "password", label: "Password", type: "password", autocomplete: "new-password"),
                ], "Create account"
            ), csrf: csrf, links: [(.signIn, "Sign in instead")], setCookies: setCookies)
    }

    func signUp(username: String, email: String, password: String, csrf: String) async -> AuthRouteResponse {
        guard !username.isEmpty, !email.isEmpty, !password.isEmpty else {
            return signUpPage(csrf: csrf, username: username, email: email, error: "Enter a username, an email and a password.", status: 400)
        }
        let plugin = self.plugin
        do {
            let context = try plugin.emptyServerContext()
            let options = AuthSignUpRequest.Options(userAttributes: [AuthUserAttribute(.email, value: email)])
            let result = try await context.run { try await plugin.signUp(username: username, password: password, options: options) }
            if result.isSignUpComplete { return redirect(to: path(.signIn) + "?notice=confirmed&username=" + URIComponent.encode(username)) }
            return redirect(to: path(.confirm) + "?username=" + URIComponent.encode(username))
        } catch {
            return signUpPage(csrf: csrf, username: username, email: email, error: Self.userMessage(error), status: Self.status(error))
        }
    }

    func confirmPage(csrf: String, username: String, error: String? = nil, status: Int = 200, setCookies: [String] = []) async -> AuthRouteResponse {
        page(
            status: status, heading: "Confirm your account", message: error ?? "Enter the code that was sent to you.", isError: error != nil,
            form: (
                .confirm,
                [
                    Field(name: "username", label: "Username", type: "text", value: username, autocomplete: "username"),
                    Field(name: "code", label: "Code", type: "text", autocomplete: "one-time-code"),
                ], "Confirm"
            ), csrf: csrf, links: [(.signIn, "Sign in")], extra: await outboxSection(username), setCookies: setCookies)
    }

    func confirm(username: String, code: String, csrf: String) async -> AuthRouteResponse {
        guard !username.isEmpty, !code.isEmpty else {
            return await confirmPage(csrf: csrf, username: username, error: "Enter your username and the code.", status: 400)
        }
        let plugin = self.plugin
        do {
            let context = try plugin.emptyServerContext()
            _ = try await context.run { try await plugin.confirmSignUp(for: username, confirmationCode: code, options: nil) }
            return redirect(to: path(.signIn) + "?notice=confirmed&username=" + URIComponent.encode(username))
        } catch {
            return await confirmPage(csrf: csrf, username: username, error: Self.userMessage(error), status: Self.status(error))
        }
    }

    // MARK: Password reset

    func forgotPasswordPage(csrf: String, message: String = "", status: Int = 200, setCookies: [String] = []) -> AuthRouteResponse {
        page(
            status: status, heading: "Reset your password", message: message, isError: status >= 400,
            form: (.forgotPassword, [Field(name: "username", label: "Username", type: "text", autocomplete: "username")], "Send a code"),
            csrf: csrf, links: [(.signIn, "Sign in")], setCookies: setCookies)
    }

    func resetPage(csrf: String, username: String, error: String? = nil, status: Int = 200) async -> AuthRouteResponse {
        page(
            status: status, heading: "Choose a new password", message: error ?? "Enter the code that was sent to you and a new password.",
            isError: error != nil,
            form: (
                .resetPassword,
                [
                    Field(name: "username", label: "Username", type: "text", value: username, autocomplete: "username"),
                    Field(name: "code", label: "Code", type: "text", autocomplete: "one-time-code"),
                    Field(name: "password", label: "New password", type: "password", autocomplete: "new-password"),
                ], "Change password"
            ), csrf: csrf, links: [(.signIn, "Sign in")], extra: await outboxSection(username))
    }

    func forgotPassword(username: String, csrf: String) async -> AuthRouteResponse {
        guard !username.isEmpty else { return forgotPasswordPage(csrf: csrf, message: "Enter your username.", status: 400) }
        let plugin = self.plugin
        do {
            let context = try plugin.emptyServerContext()
            _ = try await context.run { try await plugin.resetPassword(for: username, options: nil) }
        } catch {
            if case .service? = error as? AuthError {
                return forgotPasswordPage(csrf: csrf, message: "The code could not be sent now. Try again shortly.", status: 503)
            }
            // Whether the user exists is not told: the next page is the same either way.
        }
        return await resetPage(csrf: csrf, username: username)
    }

    func resetPassword(username: String, code: String, password: String, csrf: String) async -> AuthRouteResponse {
        guard !username.isEmpty, !code.isEmpty, !password.isEmpty else {
            return await resetPage(csrf: csrf, username: username, error: "Enter your username, the code and a new password.", status: 400)
        }
        let plugin = self.plugin
        do {
            let context = try plugin.emptyServerContext()
            try await context.run { try await plugin.confirmResetPassword(for: username, with: password, confirmationCode: code, options: nil) }
            return redirect(to: path(.signIn) + "?notice=reset&username=" + URIComponent.encode(username))
        } catch {
            return await resetPage(csrf: csrf, username: username, error: Self.userMessage(error), status: Self.status(error))
        }
    }

    // MARK: Sign-out

    func signOutPage(csrf: String, setCookies: [String]) -> AuthRouteResponse {
        page(status: 200, heading: "Sign out", message: "", form: (.signOut, [], "Sign out"), csrf: csrf, setCookies: setCookies)
    }

    // MARK: Shared

    /// The codes the local pool "sent" to `username`, when the configuration shows them (development).
    func outboxSection(_ username: String) async -> String {
        guard let outbox = configuration.outbox, !username.isEmpty else { return "" }
        let codes = await outbox(username)
        guard !codes.isEmpty else { return "" }
        return "<p>Development outbox (no mail is sent):</p>\n<pre id=\"outbox\">" + codes.map(Self.escape).joined(separator: "\n") + "</pre>\n"
    }

    /// What a page says about `error`: the plugin's description, made printable (the local pool's
    /// messages are written for users and carry no secret).
    static func userMessage(_ error: any Error) -> String {
        guard let error = error as? AuthError else { return "Something went wrong. Try again." }
        if case .service = error { return "The service could not be reached. Try again shortly." }
        return PrintableText(error.errorDescription, limit: 300).description
    }

    /// The status of a page answering `error`: 503 when the service is unreachable, 400 otherwise.
    static func status(_ error: any Error) -> Int {
        if case .service? = error as? AuthError { return 503 }
        if case .notAuthorized? = error as? AuthError { return 401 }
        return 400
    }
}

/// Percent-encoding of a query value: RFC 3986's unreserved characters kept, every other byte
/// `%XX` (the cookies' encoder with its own table).
enum URIComponent {
    private static let unreserved = AmplifyJSCookies.keptTable("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encode(_ text: String) -> String {
        AmplifyJSCookies.encode(text, keeping: unreserved)
    }
}
