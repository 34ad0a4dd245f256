import Amplify
import AmplifyConcurrency
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The tests' stand-in for Cognito's hosted UI (`hosted_ui_server.py`: `/oauth2/authorize` with a
/// plain HTML sign-in form, `/login`, `/signup`, `/oauth2/token` with PKCE S256, `/oauth2/revoke`,
/// `/logout`, the pool's JWKS, and the JSON 1.1 calls `InitiateAuth` REFRESH_TOKEN_AUTH,
/// `RevokeToken`, `GetUser` and `GlobalSignOut` at `POST /`) in a process of the test's own, on
/// one port of 127.0.0.1.
///
/// ``start(_:)`` makes sure the test-tools venv exists, starts the server on a free port, waits
/// for its `READY <port>` line and returns; ``stop()`` (or `deinit`) ends it by its PID, and
/// ``with(_:_:)`` stops it also when the test throws. ``cognitoConfiguration(region:clientId:callbackURL:logoutURL:scopes:)``
/// gives an `awsCognitoAuthPlugin` block pointing at it (both `Endpoint` and the hosted UI's
/// `WebDomain`); ``submitSignIn(at:username:password:)`` and ``followRedirect(_:)`` play the
/// browser; ``control(_:_:body:)`` and ``state()`` drive and read its control endpoints.
public final class HostedUIServer: @unchecked Sendable {
    // @unchecked Sendable: the process and its input pipe are set up in init and then only touched
    // under `stopped`'s lock; every other stored property is a constant.

    /// The app client id the server knows when ``Options/clientIds`` is empty.
    public static let defaultClientId = "hostedui000test000client01"
    /// The callback URL the server allows when ``Options/callbackURLs`` is empty.
    public static let defaultCallbackURL = "http://127.0.0.1:3000/callback"
    /// The sign-out URL the server allows when ``Options/logoutURLs`` is empty.
    public static let defaultLogoutURL = "http://127.0.0.1:3000/signout"

    /// A confirmed user of the pool, who signs in with username and password on the sign-in form.
    public struct User: Sendable, Equatable {
        /// The username (`cognito:username`, the access token's `username`; no `:` in it).
        public var username: String
        /// The password.
        public var password: String
        /// The email (the ID token's `email`, verified), if any.
        public var email: String?
        /// The groups (`cognito:groups`).
        public var groups: [String]

        /// A user.
        /// - Parameters:
        ///   - username: the username (no `:`).
        ///   - password: the password.
        ///   - email: the email, if any.
        ///   - groups: the groups.
        public init(_ username: String, password: String, email: String? = nil, groups: [String] = []) {
            self.username = username
            self.password = password
            self.email = email
            self.groups = groups
        }
    }

    /// What the hosted UI answers once a user signs in (``setMode(_:)``).
    public enum Mode: String, Sendable, CaseIterable {
        /// A redirect with a code and the request's state.
        case normal
        /// A redirect with `error=access_denied` and the request's state.
        case deny
        /// A redirect with a code and a state that is not the request's.
        case forgeState = "forge-state"
    }

    /// How to start the server: the pool, its app clients, the URLs they allow and the users.
    public struct Options: Sendable {
        /// The user pool id (`us-east-1_HostedUI`); tokens carry the issuer `https://cognito-idp.<region>.amazonaws.com/<poolId>`.
        public var poolId: String
        /// The region (the pool id's prefix when `nil`).
        public var region: String?
        /// The app client ids (``HostedUIServer/defaultClientId`` when empty).
        public var clientIds: [String]
        /// Every app client's secret: `/oauth2/token` and `/oauth2/revoke` then need HTTP Basic
        /// client authentication, `RevokeToken` a `ClientSecret`, `InitiateAuth` a `SECRET_HASH`.
        public var clientSecret: String?
        /// The allowed `redirect_uri` values (``HostedUIServer/defaultCallbackURL`` when empty).
        public var callbackURLs: [String]
        /// The allowed `logout_uri` values (``HostedUIServer/defaultLogoutURL`` when empty).
        public var logoutURLs: [String]
        /// The users (each gets a random UUID `sub`).
        public var users: [User]
        /// The access tokens' lifetime (`expires_in`), in seconds.
        public var accessTokenSeconds: Int
        /// The ID tokens' lifetime, in seconds.
        public var idTokenSeconds: Int

        /// Options; by default one app client with no secret, the default callback and sign-out
        /// URLs, and the user `alice` (password `Passw0rd!`, email `alice@example.com`).
        /// - Parameters:
        ///   - poolId: the user pool id.
        ///   - region: the region (the pool id's prefix when `nil`).
        ///   - clientIds: the app client ids.
        ///   - clientSecret: every app client's secret.
        ///   - callbackURLs: the allowed `redirect_uri` values.
        ///   - logoutURLs: the allowed `logout_uri` values.
        ///   - users: the users.
        ///   - accessTokenSeconds: the access tokens' lifetime.
        ///   - idTokenSeconds: the ID tokens' lifetime.
        public init(
            poolId: String = "us-east-1_HostedUI", region: String? = nil, clientIds: [String] = [HostedUIServer.defaultClientId],
            clientSecret: String? = nil, callbackURLs: [String] = [HostedUIServer.defaultCallbackURL],
            logoutURLs: [String] = [HostedUIServer.defaultLogoutURL],
            users: [User] = [User("alice", password: "Passw0rd!", email: "alice@example.com")], accessTokenSeconds: Int = 3600,
            idTokenSeconds: Int = 3600
        ) {
            self.poolId = poolId
            self.region = region
            self.clientIds = clientIds
            self.clientSecret = clientSecret
            self.callbackURLs = callbackURLs
            self.logoutURLs = logoutURLs
            self.users = users
            self.accessTokenSeconds = accessTokenSeconds
            self.idTokenSeconds = idTokenSeconds
        }

        var arguments: [String] {
            var arguments = ["--pool-id", poolId]
            if let region { arguments += ["--region", region] }
            for client in clientIds { arguments += ["--client-id", client] }
            if let clientSecret { arguments += ["--client-secret", clientSecret] }
            for url in callbackURLs { arguments += ["--callback-url", url] }
            for url in logoutURLs { arguments += ["--logout-url", url] }
            for user in users {
                let spec = [user.username, user.password, user.email].compactMap { $0 }.joined(separator: ":")
                arguments += ["--user", spec]
                for group in user.groups { arguments += ["--group", "\(user.username):\(group)"] }
            }
            arguments += ["--access-token-seconds", String(accessTokenSeconds), "--id-token-seconds", String(idTokenSeconds)]
            return arguments
        }
    }

    /// Whether ``stop()`` ran (not a zero-sized value: see `ProcessLaunches`).
    private let stopped = Locked(false)
    private let process: Process
    private let input: FileHandle

    /// The server's port on 127.0.0.1.
    public let port: Int
    /// The user pool id.
    public let poolId: String
    /// The pool's region.
    public let region: String
    /// The app client ids it knows.
    public let clientIds: [String]
    /// Every app client's secret, if it has one.
    public let clientSecret: String?
    /// The allowed `redirect_uri` values.
    public let callbackURLs: [String]
    /// The allowed `logout_uri` values.
    public let logoutURLs: [String]

    private init(process: Process, input: FileHandle, port: Int, options: Options) {
        self.process = process
        self.input = input
        self.port = port
        poolId = options.poolId
        region = options.region ?? options.poolId.split(separator: "_").first.map(String.init) ?? "us-east-1"
        clientIds = options.clientIds.isEmpty ? [Self.defaultClientId] : options.clientIds
        clientSecret = options.clientSecret
        callbackURLs = options.callbackURLs.isEmpty ? [Self.defaultCallbackURL] : options.callbackURLs
        logoutURLs = options.logoutURLs.isEmpty ? [Self.defaultLogoutURL] : options.logoutURLs
    }

    deinit { stop() }

    /// `http://127.0.0.1:<port>`: the hosted UI's domain (`WebDomain`) and the Cognito endpoint (`Endpoint`).
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/") }

    /// `https://cognito-idp.<region>.amazonaws.com/<poolId>`, the `iss` of its tokens (the
    /// plugin's default `tokenIssuer`).
    public var issuer: String { "https://cognito-idp.\(region).amazonaws.com/\(poolId)" }

    /// `http://127.0.0.1:<port>/<poolId>/.well-known/jwks.json`, where the plugin fetches its keys.
    public var jwksURL: URL {
        URL(string: "http://127.0.0.1:\(port)/\(poolId)/.well-known/jwks.json") ?? URL(fileURLWithPath: "/")
    }

    /// Starts a server and waits for its `READY` line, on a thread of its own, so that waiting
    /// for the server (about a second) does not hold one of the few threads Swift's concurrency
    /// runs tests on.
    /// - Throws: ``HostedUIServerError`` when the venv cannot be made or the server does not start.
    public static func start(_ options: Options = Options()) async throws -> HostedUIServer {
        try await offThePool { try startBlocking(options) }
    }

    private static func startBlocking(_ options: Options) throws -> HostedUIServer {
        let started = try PythonStandIn.start(
            script: "Sources/AmplifyTestKit/HostedUI/hosted_ui_server.py", arguments: options.arguments, logVariable: "AMPLIFY_HOSTED_UI_LOG",
            failure: HostedUIServerError.init)
        return HostedUIServer(process: started.process, input: started.input, port: started.port, options: options)
    }

    /// Starts a server, runs `body` with it, and stops it, whether `body` returns or throws.
    /// - Parameters:
    ///   - options: the pool, its clients and users.
    ///   - body: the test.
    /// - Throws: what ``start(_:)`` or `body` throws.
    public static func with<T>(_ options: Options = Options(), _ body: (HostedUIServer) async throws -> T) async throws -> T {
        let server = try await start(options)
        defer { server.stop() }
        return try await body(server)
    }

    /// An `awsCognitoAuthPlugin` block (the Amplify CLI's shape) for this server:
    /// `CognitoUserPool.Default` with `PoolId`, `AppClientId`, `Region`, `Endpoint` (and
    /// `AppClientSecret` when the server has a secret), and `Auth.Default.OAuth` with `WebDomain`,
    /// `AppClientId`, `SignInRedirectURI`, `SignOutRedirectURI` and `Scopes`. With `Endpoint` set,
    /// the plugin fetches the keys from ``jwksURL`` and expects the ``issuer`` it also writes.
    /// - Parameters:
    ///   - region: the block's `Region` (the server's by default).
    ///   - clientId: the app client (the first of ``clientIds`` by default).
    ///   - callbackURL: `SignInRedirectURI` (the first of ``callbackURLs`` by default); the plugin
    ///     listens on its port, so tests that run in parallel should each allow one on a free
    ///     port (`RedisServer.freePort()`).
    ///   - logoutURL: `SignOutRedirectURI` (the first of ``logoutURLs`` by default).
    ///   - scopes: `Scopes`; `GetUser` and `GlobalSignOut` need `aws.cognito.signin.user.admin`,
    ///     and only `openid` brings an ID token.
    /// - Returns: the block, to put under `auth.plugins.awsCognitoAuthPlugin`.
    public func cognitoConfiguration(
        region: String? = nil, clientId: String? = nil, callbackURL: String? = nil, logoutURL: String? = nil,
        scopes: [String] = ["openid", "email", "profile", "aws.cognito.signin.user.admin"]
    ) -> JSONValue {
        let client = clientId ?? clientIds.first ?? Self.defaultClientId
        var pool: [String: JSONValue] = [
            "PoolId": .string(poolId), "AppClientId": .string(client), "Region": .string(region ?? self.region),
            "Endpoint": .string(baseURL.absoluteString),
        ]
        if let clientSecret { pool["AppClientSecret"] = .string(clientSecret) }
        var oauth: [String: JSONValue] = [
            "WebDomain": .string(baseURL.absoluteString), "AppClientId": .string(client),
            "SignInRedirectURI": .string(callbackURL ?? callbackURLs.first ?? Self.defaultCallbackURL),
            "Scopes": .array(scopes.map(JSONValue.string)),
        ]
        if let signOut = logoutURL ?? logoutURLs.first { oauth["SignOutRedirectURI"] = .string(signOut) }
        return .object([
            "CognitoUserPool": .object(["Default": .object(pool)]),
            "Auth": .object(["Default": .object(["OAuth": .object(oauth)])]),
        ])
    }

    /// Plays the browser on the sign-in page: GETs `authorizeURL` (the URL the plugin presents),
    /// posts the sign-in form with `username` and `password` (and the authorize parameters, as
    /// the page's hidden inputs carry them), and returns the `Location` the hosted UI redirects to
    /// (the callback URL with `code` and `state`, or with `error`), without following it. With
    /// `identity_provider` in the URL the redirect comes at once and the credentials are unused.
    /// - Parameters:
    ///   - authorizeURL: `http://127.0.0.1:<port>/oauth2/authorize?…` of this server.
    ///   - username: the username typed in.
    ///   - password: the password typed in.
    /// - Returns: the redirect's `Location`.
    /// - Throws: ``HostedUIServerError`` for another URL, an authorize request the server refuses
    ///   (400), or credentials it refuses.
    public func submitSignIn(at authorizeURL: URL, username: String, password: String) async throws -> String {
        guard let components = URLComponents(url: authorizeURL, resolvingAgainstBaseURL: false), components.host == "127.0.0.1",
            components.port == port, components.path == "/oauth2/authorize"
        else {
            throw HostedUIServerError("\(authorizeURL) is not the authorize URL of the hosted UI stand-in on port \(port)")
        }
        let query = components.percentEncodedQuery ?? ""
        let page = try await RawHTTP.request(port: port, "GET", "/oauth2/authorize?" + query)
        if page.status == 302, let location = page.values(of: "Location").first { return location }
        guard page.status == 200 else {
            throw HostedUIServerError("the hosted UI refused the authorize request: HTTP \(page.status): \(page.body.prefix(300))")
        }
        let form = query + "&username=" + Self.formEncoded(username) + "&password=" + Self.formEncoded(password)
        let answer = try await RawHTTP.request(
            port: port, "POST", "/login", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array(form.utf8))
        if answer.status == 302, let location = answer.values(of: "Location").first { return location }
        if answer.status == 200 { throw HostedUIServerError("the hosted UI refused the username or password of \(username)") }
        throw HostedUIServerError("the hosted UI refused the sign-in: HTTP \(answer.status): \(answer.body.prefix(300))")
    }

    /// GETs a redirect's `Location` as the browser would, when it is an `http` URL on 127.0.0.1
    /// or `localhost` (the plugin's loopback listener), and returns the answer.
    /// - Parameter location: what ``submitSignIn(at:username:password:)`` returned.
    /// - Returns: the listener's answer.
    /// - Throws: ``HostedUIServerError`` for a URL elsewhere (no traffic leaves 127.0.0.1), or
    ///   what `RawHTTP` throws when nothing answers.
    @discardableResult
    public func followRedirect(_ location: String) async throws -> RawHTTP.Response {
        guard let components = URLComponents(string: location), components.scheme == "http", let host = components.host,
            host == "127.0.0.1" || host == "localhost", let redirectPort = components.port, (1...65_535).contains(redirectPort)
        else {
            throw HostedUIServerError("\(location) is not an http URL with a port on 127.0.0.1; the stand-in's browser goes nowhere else")
        }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        let target = path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        return try await RawHTTP.request(port: redirectPort, "GET", target)
    }

    /// POSTs to the control endpoint `/control/<name>` with `query` (and `body`) and returns the answer.
    /// - Parameters:
    ///   - name: `reset`, `mode`, `users`.
    ///   - query: its parameters (`["name": "deny"]`).
    ///   - body: a JSON body (`users`: `{"username", "password", "email"?, "groups"?}`).
    /// - Returns: the answer's JSON.
    /// - Throws: ``HostedUIServerError`` when the server does not answer 200.
    @discardableResult
    public func control(_ name: String, _ query: [String: String] = [:], body: JSONValue? = nil) async throws -> JSONValue {
        let queryText =
            query.isEmpty
            ? "" : "?" + query.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.formEncoded($0.value))" }.joined(separator: "&")
        let payload = try body.map { try JSONEncoder().encode($0) } ?? Data()
        let answer = try await RawHTTP.request(
            port: port, "POST", "/control/\(name)\(queryText)", headers: [("Content-Type", "application/json")], body: Array(payload))
        return try Self.json(answer)
    }

    /// `GET /control/state`: `counts` (`authorizeRequests`, `authorizeErrors`, `authorizePages`,
    /// `logins`, `failedLogins`, `signups`, `federatedSignIns`, `codesIssued`, `codesExchanged`,
    /// `codesRefused`, `refreshes`, `revocations`, `globalSignOuts`, `logouts`, `refusedLogouts`),
    /// `lastAuthorize` (the last authorize query), `providers`, `federatedUsers`,
    /// `revokedOriginJtis`, `logouts`, `mode`, `users`, `sessions`.
    /// - Returns: the state's JSON.
    /// - Throws: ``HostedUIServerError`` when the server does not answer 200.
    public func state() async throws -> JSONValue {
        try Self.json(try await RawHTTP.request(port: port, "GET", "/control/state"))
    }

    /// Clears the codes, the sessions (refresh tokens) and their revocations, the mode, the
    /// counts and the records; the users and the signing key stay.
    /// - Throws: ``HostedUIServerError`` when the server does not answer 200.
    public func reset() async throws {
        try await control("reset")
    }

    /// Sets what the hosted UI answers once a user signs in.
    /// - Parameter mode: the mode.
    /// - Throws: ``HostedUIServerError`` when the server does not answer 200.
    public func setMode(_ mode: Mode) async throws {
        try await control("mode", ["name": mode.rawValue])
    }

    /// Adds a confirmed user.
    /// - Parameter user: the user.
    /// - Returns: the user's `sub`.
    /// - Throws: ``HostedUIServerError`` when the username is taken (HTTP 409) or the server does not answer.
    @discardableResult
    public func addUser(_ user: User) async throws -> String {
        let body: JSONValue = .object([
            "username": .string(user.username), "password": .string(user.password), "email": user.email.map(JSONValue.string) ?? .null,
            "groups": .array(user.groups.map(JSONValue.string)),
        ])
        return try await control("users", body: body)["sub"]?.stringValue ?? ""
    }

    /// Ends the server by its PID (SIGTERM, then SIGKILL if it is still there after 5 s) and waits
    /// until it is gone (once; later calls do nothing).
    public func stop() {
        stopped.withLock { stopped in
            guard !stopped else { return }
            stopped = true
            ChildProcessStop.stop(process)
            try? input.close()
        }
    }

    private static func json(_ answer: RawHTTP.Response) throws -> JSONValue {
        guard answer.status == 200 else { throw HostedUIServerError("HTTP \(answer.status): \(answer.body.prefix(300))") }
        return (try? JSONDecoder().decode(JSONValue.self, from: Data(answer.body.utf8))) ?? .null
    }

    /// `text` percent-encoded for a query or a form: everything but unreserved characters.
    private static func formEncoded(_ text: String) -> String {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}

/// What went wrong starting or driving the hosted UI stand-in.
public struct HostedUIServerError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String

    init(_ description: String) { self.description = description }
}
