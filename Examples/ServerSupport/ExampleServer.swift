import Amplify
import AmplifyAuthCore
import AmplifyPlugins
import Foundation

/// What the two HTTP-server examples share: their options, the configuration (the embedded sample
/// by default), and the bodies of their routes, so each example is only its framework's wiring.
public enum ExampleServer {
    /// `--config PATH` and `--port N`.
    public struct Options: Sendable {
        /// The configuration file (`nil`: the embedded sample).
        public var configPath: String?
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
