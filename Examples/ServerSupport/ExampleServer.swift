import Amplify
import AmplifyAuthCore
import AmplifyPlugins
import Foundation
import LocalAuthPlugin

#if canImport(Glibc)
    import Glibc
#endif

/// What the two HTTP-server examples share: their options, the configuration (the embedded sample
/// by default), and the bodies of their routes, so each example is only its framework's wiring.
public enum ExampleServer {
    /// `--config PATH`, `--port N` and `--origin URL`.
    public struct Options: Sendable {
        /// The configuration file (`nil`: the embedded sample).
        public var configPath: String?
        /// The origin browsers see the server at (`nil`: `http://127.0.0.1:<port>`); the sign-in
        /// routes build their callback URLs on it and accept forms only from it.
        public var origin: String?
        /// The port (0: any free port).
        public var port: Int

        /// Reads `arguments` (without the program's name).
        /// - Throws: ``UsageError`` naming the argument that is wrong.
        public init(_ arguments: [String]) throws {
            configPath = nil
            port = 8080
            var rest = arguments[...]
            while let argument = rest.popFirst() {
                switch argument {
                case "--config":
                    guard let path = rest.popFirst() else { throw UsageError(message: "--config needs a path.") }
                    configPath = path
                case "--port":
                    guard let text = rest.popFirst(), let port = Int(text), (0...65535).contains(port) else {
                        throw UsageError(message: "--port needs a number from 0 (any free port) to 65535.")
                    }
                    self.port = port
                case "--origin":
                    guard let origin = rest.popFirst() else { throw UsageError(message: "--origin needs a URL such as https://app.example.com.") }
                    self.origin = origin
                case "--help", "-h":
                    throw UsageError(message: "")
                default:
                    throw UsageError(message: "Unknown argument '\(PrintableText(argument, limit: 80))'.")
                }
            }
        }
    }

    /// A bad command line.
    public struct UsageError: Error, CustomStringConvertible {
        /// What was wrong (empty for `--help`).
        public let message: String
        /// The message and the usage line.
        public var description: String {
            (message.isEmpty ? "" : message + "\n")
                + "usage: [--config PATH (default: the embedded sample)] [--port N (default 8080; 0: any free port)]"
                + " [--origin URL (default http://127.0.0.1:PORT)]"
        }
    }

    /// The embedded sample: the local user pool, local storage and analytics under `.amplify/` in
    /// the working directory (the configuration `Examples/Configurations/embedded.json` holds).
    public static let embedded: JSONValue = [
        "logging": ["plugins": ["swiftLogLoggingPlugin": ["logLevel": "warn"]]],
        "auth": [
            "plugins": [
                "localAuthPlugin": [
                    "directory": ".amplify/local-auth", "accessTokenLifetimeSeconds": 3600, "signUpRequiresConfirmation": true,
                    "passwordPolicy": ["minLength": 8, "requireNumbers": true],
                ]
            ]
        ],
        "storage": ["plugins": ["localStoragePlugin": ["directory": ".amplify/storage"]]],
    ]

    /// The options of this process's command line; on a bad one, prints it with the usage line
    /// and exits with status 2.
    public static func commandLineOptions() -> Options {
        do {
            return try Options(Array(CommandLine.arguments.dropFirst()))
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            exit(2)
        }
    }

    /// Runs an example's `body`; an error it throws (a configuration file that is missing or
    /// wrong, a port in use) is printed as `error: …` on standard error and the process exits
    /// with status 1 — never the trap of an error thrown out of `main`.
    public static func runReportingErrors(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Void) async {
        do {
            try await body()
        } catch {
            let text = (error as? any AmplifyError).map { "\($0.errorDescription)\n\($0.recoverySuggestion)" } ?? "\(error)"
            FileHandle.standardError.write(Data("error: \(text)\n".utf8))
            exit(1)
        }
    }

    /// Configures Amplify from `options` and returns the Auth plugin requests are authenticated
    /// against (the local pool's or Cognito's).
    /// - Throws: Amplify's configuration errors, or ``UsageError`` when the file configures no
    ///   Auth plugin that serves server contexts.
    public static func configure(_ options: Options) throws -> any AuthServerContextPlugin {
        Amplify.registerBuiltInPlugins()
        if let path = options.configPath {
            try Amplify.configure(AmplifyConfiguration(configurationFile: URL(fileURLWithPath: path)))
        } else {
            try Amplify.configure(try JSONDecoder().decode(AmplifyConfiguration.self, from: bytes(embedded)))
        }
        for key in ["localAuthPlugin", "awsCognitoAuthPlugin"] {
            if let plugin = try? Amplify.Auth.getPlugin(for: key) as? any AuthServerContextPlugin { return plugin }
        }
        throw UsageError(message: "The configuration has no localAuthPlugin or awsCognitoAuthPlugin to authenticate requests with.")
    }

    /// The sign-in routes and the request authenticator of an example, sharing one verified-token
    /// cache and one set of cookie attributes (HttpOnly; Secure on an https origin), so cookies
    /// refreshed by the middleware are written as the routes write them.
    public struct SignIn: Sendable {
        /// The server-owned sign-in routes (`/auth/…`).
        public let routes: AuthRoutes
        /// What the middleware authenticates requests with.
        public let authenticator: AmplifyAuthenticator
    }

    /// The sign-in routes for `auth` (the hosted UI when the configuration has one, else the
    /// local pool's own pages, which show the pool's outbox: this is an example for development,
    /// no mail is sent) and the authenticator beside them.
    /// - Throws: `AuthError.configuration` for an origin that is not `http(s)://host[:port]`.
    public static func signIn(_ auth: any AuthServerContextPlugin, _ options: Options) throws -> SignIn {
        var outbox: (@Sendable (String) async -> [String])?
        if let local = auth as? LocalAuthPlugin {
            outbox = { username in
                let messages = (try? await local.outbox(for: username)) ?? []
                return messages.map(\.code)
            }
        }
        let cache = VerifiedTokenCache()
        let routes = try AuthRoutes(
            plugin: auth,
            configuration: .init(
                origin: options.origin ?? "http://127.0.0.1:\(options.port)", outbox: outbox, title: "Amplify example", cache: cache))
        return SignIn(routes: routes, authenticator: AmplifyAuthenticator(plugin: auth, cache: cache, cookieAttributes: routes.tokenCookies))
    }

    /// A free port on 127.0.0.1 for `--port 0` (the sign-in routes need the origin before the
    /// server starts).
    /// - Throws: ``UsageError`` when no socket can be bound.
    public static func resolvedPort(_ port: Int) throws -> Int {
        guard port == 0 else { return port }
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw UsageError(message: "No socket for a free port: errno \(errno).") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(socket, generic, length) == 0 && getsockname(socket, generic, &length) == 0
            }
        }
        guard bound else { throw UsageError(message: "No free port on 127.0.0.1: errno \(errno).") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// `GET /`: links to the sign-in pages and the API.
    public static let homePage = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Amplify example</title></head><body>
        <h1>Amplify example</h1>
        <p><a id="sign-in" href="/auth/sign-in">Sign in</a> · <a id="sign-up" href="/auth/sign-up">Create an account</a> ·
        <a id="me" href="/me">Who am I (/me)</a> · <a id="sign-out" href="/auth/sign-out">Sign out</a></p>
        </body></html>

        """

    /// `GET /health`.
    public static let health: JSONValue = ["status": "ok"]

    /// `GET /me`: the user the middleware verified, and the same user as `Amplify.Auth` sees it
    /// in the request's context.
    public static func me(_ user: AuthenticatedUser) async throws -> JSONValue {
        let current = try await Amplify.Auth.getCurrentUser()
        return [
            "username": .string(user.username), "sub": .string(user.sub), "groups": .array(user.groups.map(JSONValue.string)),
            "authUser": .string(current.username),
        ]
    }

    /// The user's own folder: `private/<identity id>/`.
    static let ownFolder: IdentityIDStoragePath = .fromIdentityID { "private/\($0)/" }

    /// `GET /me/files`: the user's own files, through `Amplify.Storage` as the user.
    public static func files() async throws -> JSONValue {
        let listed = try await Amplify.Storage.list(path: ownFolder, options: nil)
        return ["files": .array(listed.items.map { ["path": .string($0.path), "size": .number(Double($0.size ?? 0))] })]
    }

    /// `PUT /me/files/NAME`: stores the body as one of the user's files.
    /// - Throws: `StorageError.validation` for a name with `/` or `..`.
    public static func upload(name: String, data: Data) async throws -> JSONValue {
        guard !name.isEmpty, !name.contains("/"), name != "..", name != "." else {
            throw StorageError.validation("name", "The file name '\(PrintableText(name, limit: 80))' is not a plain name.", "Use a name without '/'.")
        }
        let path: IdentityIDStoragePath = .fromIdentityID { "private/\($0)/\(name)" }
        let result = try await Amplify.Storage.uploadData(path: path, data: data, options: nil).value
        return ["path": .string(result)]
    }

    /// `GET /admin`: only members of `admins` get here.
    public static func admin(_ user: AuthenticatedUser) -> JSONValue {
        ["admin": .string(user.username)]
    }

    /// The first line each example prints, which tests and scripts wait for.
    public static func announce(port: Int) {
        FileHandle.standardOutput.write(Data("listening on http://127.0.0.1:\(port)\n".utf8))
    }

    /// A JSON value as bytes.
    public static func bytes(_ value: JSONValue) -> Data {
        (try? JSONEncoder().encode(value)) ?? Data("null".utf8)
    }
}
