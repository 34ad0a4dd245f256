import Amplify
import AmplifyConcurrency
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The tests' AppSync stand-in (`appsync_server.py`: GraphQL over HTTP and AppSync's real-time
/// protocol on one port of 127.0.0.1, every auth mode checked for real) in a process of the
/// test's own.
///
/// ``start(_:)`` makes sure the test-tools venv exists, starts the server on a free port, waits
/// for its `READY <port>` line and returns; ``stop()`` (or `deinit`) ends it by its PID, and
/// ``with(_:_:)`` stops it also when the test throws. ``control(_:_:body:)`` drives its control
/// endpoints (drop every WebSocket, stall, stop `ka`, fail the next requests, reset), ``seed(_:)``
/// loads records. With ``Options/models`` it serves the API the Amplify GraphQL transformer
/// generates for a Gen 2 `model_introspection` (`getPost`, `listPosts`, `createPost`,
/// `onCreatePost`, ...) from in-memory tables instead of its fixed `Todo` schema.
///
/// Calls block the calling thread briefly; use them from tests, not from a loop.
public final class AppSyncServer: @unchecked Sendable {
    // @unchecked Sendable: the process is set up in init and then only touched under `stopped`'s lock.

    /// How to start the server: which credentials it accepts for each auth mode.
    public struct Options: Sendable {
        /// Accepted API keys (`API_KEY`).
        public var apiKeys: [String]
        /// Accepted IAM keys (`AWS_IAM`), as (access key id, secret access key, session token).
        public var iamKeys: [(accessKeyId: String, secretAccessKey: String, sessionToken: String?)]
        /// The user pool whose tokens are accepted (`AMAZON_COGNITO_USER_POOLS`): moto's JWKS URL,
        /// the issuer its tokens carry, and the app client ids.
        public var userPool: (jwksURL: String, issuer: String, clientIds: [String])?
        /// Accepted `OPENID_CONNECT` tokens.
        public var oidcTokens: [String]
        /// Accepted `AWS_LAMBDA` tokens.
        public var lambdaTokens: [String]
        /// The mode for fields without auth directives (the first configured, by default).
        public var defaultAuth: String?
        /// Serve https and wss with a self-signed certificate for 127.0.0.1 (see ``AppSyncServer/certificateFile``).
        public var tls: Bool
        /// Seconds between `ka` messages (60).
        public var keepAliveInterval: Double?
        /// The `connectionTimeoutMs` of `connection_ack` (300 000).
        public var connectionTimeoutMs: Int?
        /// Subscriptions allowed per connection (100).
        public var maxSubscriptions: Int?
        /// A Gen 2 `model_introspection` JSON file (or a whole `amplify_outputs.json`): the server
        /// then serves the API generated for its models instead of its `Todo` schema. A relative
        /// path is taken from the package's root (`Tests/Fixtures/ModelIntrospection/blog.json`).
        public var models: String?
        /// With ``models``: conflict detection, as DataStore's APIs have it (`_version`,
        /// `_deleted`, `_lastChangedAt`, `syncPosts`, `ConflictUnhandled` for a stale `_version`).
        public var conflictDetection: Bool

        /// Options; by default only the API key `da2-test` is accepted.
        /// - Parameters:
        ///   - apiKeys: accepted API keys.
        ///   - iamKeys: accepted IAM keys.
        ///   - userPool: the user pool whose tokens are accepted.
        ///   - oidcTokens: accepted OIDC tokens.
        ///   - lambdaTokens: accepted Lambda tokens.
        ///   - defaultAuth: the mode for fields without auth directives.
        ///   - tls: serve https and wss.
        ///   - keepAliveInterval: seconds between `ka` messages.
        ///   - connectionTimeoutMs: the `connectionTimeoutMs` of `connection_ack`.
        ///   - maxSubscriptions: subscriptions allowed per connection.
        ///   - models: a `model_introspection` file whose models to serve.
        ///   - conflictDetection: with `models`, conflict detection.
        public init(
            apiKeys: [String] = ["da2-test"], iamKeys: [(accessKeyId: String, secretAccessKey: String, sessionToken: String?)] = [],
            userPool: (jwksURL: String, issuer: String, clientIds: [String])? = nil, oidcTokens: [String] = [], lambdaTokens: [String] = [],
            defaultAuth: String? = nil, tls: Bool = false, keepAliveInterval: Double? = nil, connectionTimeoutMs: Int? = nil,
            maxSubscriptions: Int? = nil, models: String? = nil, conflictDetection: Bool = false
        ) {
            self.apiKeys = apiKeys
            self.iamKeys = iamKeys
            self.userPool = userPool
            self.oidcTokens = oidcTokens
            self.lambdaTokens = lambdaTokens
            self.defaultAuth = defaultAuth
            self.tls = tls
            self.keepAliveInterval = keepAliveInterval
            self.connectionTimeoutMs = connectionTimeoutMs
            self.maxSubscriptions = maxSubscriptions
            self.models = models
            self.conflictDetection = conflictDetection
        }

        var arguments: [String] {
            var arguments: [String] = []
            for key in apiKeys { arguments += ["--api-key", key] }
            for key in iamKeys {
                arguments += ["--iam-access-key", key.accessKeyId, "--iam-secret-key", key.secretAccessKey]
                if let token = key.sessionToken { arguments += ["--iam-session-token", token] }
            }
            if let userPool {
                arguments += ["--jwks-url", userPool.jwksURL, "--user-pool-issuer", userPool.issuer]
                for client in userPool.clientIds { arguments += ["--user-pool-client-id", client] }
            }
            for token in oidcTokens { arguments += ["--oidc-token", token] }
            for token in lambdaTokens { arguments += ["--lambda-token", token] }
            if let defaultAuth { arguments += ["--default-auth", defaultAuth] }
            if let keepAliveInterval { arguments += ["--ka-interval", String(keepAliveInterval)] }
            if let connectionTimeoutMs { arguments += ["--connection-timeout-ms", String(connectionTimeoutMs)] }
            if let maxSubscriptions { arguments += ["--max-subscriptions", String(maxSubscriptions)] }
            if let models {
                let path = models.hasPrefix("/") ? models : MotoServer.packageRoot.appendingPathComponent(models).path
                arguments += ["--models", path]
            }
            if conflictDetection { arguments += ["--conflict-detection"] }
            return arguments
        }
    }

    /// Whether ``stop()`` ran (not a zero-sized value: see `ProcessLaunches`).
    private let stopped = Locked(false)
    private let process: Process
    private let input: FileHandle
    private let folder: URL

    /// The server's port on 127.0.0.1.
    public let port: Int
    /// Whether it serves https and wss.
    public let tls: Bool
    /// The PEM certificate it serves with TLS (trust it as the only authority), `nil` without TLS.
    public let certificateFile: String?

    private init(process: Process, input: FileHandle, port: Int, tls: Bool, folder: URL) {
        self.process = process
        self.input = input
        self.port = port
        self.tls = tls
        self.folder = folder
        certificateFile = tls ? folder.appendingPathComponent("cert.pem").path : nil
    }

    deinit { stop() }

    /// `http(s)://127.0.0.1:<port>/graphql`, the GraphQL endpoint.
    public var graphQLEndpoint: URL { URL(string: "\(tls ? "https" : "http")://127.0.0.1:\(port)/graphql") ?? URL(fileURLWithPath: "/") }

    /// `ws(s)://127.0.0.1:<port>/graphql/realtime`, the real-time endpoint Amplify derives for it.
    public var realtimeEndpoint: URL { URL(string: "\(tls ? "wss" : "ws")://127.0.0.1:\(port)/graphql/realtime") ?? URL(fileURLWithPath: "/") }

    /// Starts a server and waits for its `READY` line, on a thread of its own, so that waiting
    /// for the server (about a second) does not hold one of the few threads Swift's concurrency
    /// runs tests on.
    /// - Throws: ``AppSyncServerError`` when the venv cannot be made, the certificate cannot be
    ///   made, or the server does not start.
    public static func start(_ options: Options = Options()) async throws -> AppSyncServer {
        try await offThePool { try startBlocking(options) }
    }

    private static func startBlocking(_ options: Options) throws -> AppSyncServer {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("appsync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var arguments = options.arguments
        if options.tls {
            let cert = folder.appendingPathComponent("cert.pem").path
            let key = folder.appendingPathComponent("key.pem").path
            let openssl = Process()
            openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            openssl.arguments = [
                "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            ]
            openssl.standardOutput = FileHandle.nullDevice
            openssl.standardError = FileHandle.nullDevice
            try openssl.runSerialized()
            ChildProcessStop.waitForExit(openssl)
            guard FileManager.default.fileExists(atPath: cert), FileManager.default.fileExists(atPath: key) else {
                throw AppSyncServerError("openssl could not make a certificate")
            }
            arguments += ["--tls-cert", cert, "--tls-key", key]
        }
        let started = try PythonStandIn.start(
            script: "Sources/AmplifyTestKit/AppSync/appsync_server.py", arguments: arguments, logVariable: "AMPLIFY_APPSYNC_LOG",
            failure: AppSyncServerError.init)
        return AppSyncServer(process: started.process, input: started.input, port: started.port, tls: options.tls, folder: folder)
    }

    /// Starts a server, runs `body` with it, and stops it, whether `body` returns or throws.
    /// - Parameters:
    ///   - options: what the server accepts.
    ///   - body: the test.
    /// - Throws: what ``start(_:)`` or `body` throws.
    public static func with<T>(_ options: Options = Options(), _ body: (AppSyncServer) async throws -> T) async throws -> T {
        let server = try await start(options)
        defer { server.stop() }
        return try await body(server)
    }

    /// POSTs to the control endpoint `/control/<name>` with `query` (and `body`) and returns the answer.
    /// - Parameters:
    ///   - name: `reset`, `drop`, `close`, `stall`, `stop-ka`, `start-ka`, `fail`, `iam-credentials`, `seed`.
    ///   - query: its parameters (`["seconds": "2"]`).
    ///   - body: a JSON body (`iam-credentials`, `seed`).
    /// - Throws: ``AppSyncServerError`` when the server does not answer 200.
    @discardableResult
    public func control(_ name: String, _ query: [String: String] = [:], body: JSONValue? = nil) throws -> JSONValue {
        try plainHTTP(method: "POST", target: StandInControl.target(name, query), body: StandInControl.body(body))
    }

    /// `GET /control/state`: `connections`, `subscriptions`, `todos`, `graphqlRequests`, `kaStopped`,
    /// and with ``Options/models`` `models` (the number of records of each model).
    /// - Throws: ``AppSyncServerError`` when the server does not answer.
    public func state() throws -> JSONValue {
        try plainHTTP(method: "GET", target: "/control/state", body: Data())
    }

    /// Loads records straight into the server's tables (`POST /control/seed`), without mutations
    /// or subscription events: each is stored as given, replacing a stored record of the same
    /// key; an `id` key is made when absent, `createdAt`/`updatedAt` (and, with conflict
    /// detection, `_version` 1 and `_lastChangedAt`) filled in. Without ``Options/models`` only
    /// `"Todo"` records can be seeded. Runs on a thread of its own.
    /// - Parameter records: records by model name: `["Post": [["title": "A", "status": "DRAFT"]]]`.
    /// - Throws: ``AppSyncServerError`` when the server refuses them (an unknown model, a record
    ///   without its key fields: nothing is stored) or does not answer.
    public func seed(_ records: [String: [JSONValue]]) async throws {
        let body = JSONValue.object(records.mapValues { JSONValue.array($0) })
        _ = try await offThePool { try self.control("seed", body: body) }
    }

    /// Ends the server by its PID (SIGTERM, then SIGKILL if it is still there after 5 s) and waits
    /// until it is gone (once; later calls do nothing).
    public func stop() {
        stopped.withLock { stopped in
            guard !stopped else { return }
            stopped = true
            ChildProcessStop.stop(process)
            try? input.close()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// One HTTP/1.1 exchange with the server over a plain socket (with TLS, through the curl tool).
    private func plainHTTP(method: String, target: String, body: Data) throws -> JSONValue {
        if tls { return try curlHTTP(method: method, target: target, body: body) }
        let answer = try StandInControl.exchange(
            port: port, name: "AppSync stand-in", method: method, target: target, body: body, error: AppSyncServerError.init)
        return (try? JSONDecoder().decode(JSONValue.self, from: answer)) ?? .null
    }

    /// The same exchange through the curl tool, trusting the server's certificate.
    private func curlHTTP(method: String, target: String, body: Data) throws -> JSONValue {
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        curl.arguments = [
            "curl", "-sS", "-i", "--cacert", certificateFile ?? "", "-X", method, "-H", "Content-Type: application/json",
            "--data-binary", String(decoding: body, as: UTF8.self), "https://127.0.0.1:\(port)\(target)",
        ]
        let output = Pipe()
        curl.standardOutput = output
        curl.standardError = FileHandle.nullDevice
        try curl.runSerialized()
        let answer = output.fileHandleForReading.readDataToEndOfFile()
        ChildProcessStop.waitForExit(curl)
        return try Self.parse(answer)
    }

    private static func parse(_ answer: Data) throws -> JSONValue {
        let body = try StandInControl.okBody(answer, error: AppSyncServerError.init)
        return (try? JSONDecoder().decode(JSONValue.self, from: body)) ?? .null
    }
}

/// What went wrong starting or driving the AppSync stand-in.
public struct AppSyncServerError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String

    init(_ description: String) { self.description = description }
}
