import Amplify
import AmplifyConcurrency
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The tests' AWS AppSync Events stand-in (`appsync_events_server.py`: the Event API's HTTP
/// publish and its real-time WebSocket protocol on one port of 127.0.0.1, every auth mode checked
/// for real) in a process of the test's own.
///
/// ``start(_:)`` makes sure the test-tools venv exists, starts the server on a free port, waits
/// for its `READY <port>` line and returns; ``stop()`` (or `deinit`) ends it by its PID, and
/// ``with(_:_:)`` stops it also when the test throws. ``control(_:_:body:)`` drives its control
/// endpoints (drop or close every WebSocket, stop `ka`, cut the next data frame, send a burst of
/// events, reset) and ``state()`` reads its counts.
///
/// Calls block the calling thread briefly; use them from tests, not from a loop.
public final class AppSyncEventsServer: @unchecked Sendable {
    // @unchecked Sendable: the process is set up in init and then only touched under `stopped`'s lock.

    /// How to start the server: which credentials it accepts for each auth mode, and which
    /// channel namespaces exist.
    public struct Options: Sendable {
        /// Accepted API keys (`API_KEY`, the `x-api-key` header).
        public var apiKeys: [String]
        /// Accepted IAM keys (`AWS_IAM`), as (access key id, secret access key, session token).
        public var iamKeys: [(accessKeyId: String, secretAccessKey: String, sessionToken: String?)]
        /// Accepted `AMAZON_COGNITO_USER_POOLS` tokens (the `Authorization` header, compared as a string).
        public var userPoolTokens: [String]
        /// Accepted `OPENID_CONNECT` tokens (compared as strings).
        public var oidcTokens: [String]
        /// Accepted `AWS_LAMBDA` tokens (compared as strings).
        public var lambdaTokens: [String]
        /// The channel namespaces that exist (the first segment of a channel).
        public var namespaces: [String]
        /// Seconds between `ka` messages (60).
        public var keepAliveInterval: Double?
        /// The `connectionTimeoutMs` of `connection_ack` (300 000).
        public var connectionTimeoutMs: Int?

        /// Options; by default only the API key `da2-test` is accepted and only the namespace
        /// `default` exists.
        /// - Parameters:
        ///   - apiKeys: accepted API keys.
        ///   - iamKeys: accepted IAM keys.
        ///   - userPoolTokens: accepted user-pool tokens.
        ///   - oidcTokens: accepted OIDC tokens.
        ///   - lambdaTokens: accepted Lambda tokens.
        ///   - namespaces: the channel namespaces that exist.
        ///   - keepAliveInterval: seconds between `ka` messages.
        ///   - connectionTimeoutMs: the `connectionTimeoutMs` of `connection_ack`.
        public init(
            apiKeys: [String] = ["da2-test"], iamKeys: [(accessKeyId: String, secretAccessKey: String, sessionToken: String?)] = [],
            userPoolTokens: [String] = [], oidcTokens: [String] = [], lambdaTokens: [String] = [], namespaces: [String] = ["default"],
            keepAliveInterval: Double? = nil, connectionTimeoutMs: Int? = nil
        ) {
            self.apiKeys = apiKeys
            self.iamKeys = iamKeys
            self.userPoolTokens = userPoolTokens
            self.oidcTokens = oidcTokens
            self.lambdaTokens = lambdaTokens
            self.namespaces = namespaces
            self.keepAliveInterval = keepAliveInterval
            self.connectionTimeoutMs = connectionTimeoutMs
        }

        var arguments: [String] {
            var arguments: [String] = []
            for key in apiKeys { arguments += ["--api-key", key] }
            for key in iamKeys {
                arguments += ["--iam-access-key", key.accessKeyId, "--iam-secret-key", key.secretAccessKey]
                if let token = key.sessionToken { arguments += ["--iam-session-token", token] }
            }
            for token in userPoolTokens { arguments += ["--user-pool-token", token] }
            for token in oidcTokens { arguments += ["--oidc-token", token] }
            for token in lambdaTokens { arguments += ["--lambda-token", token] }
            for namespace in namespaces { arguments += ["--namespace", namespace] }
            if let keepAliveInterval { arguments += ["--ka-interval", String(keepAliveInterval)] }
            if let connectionTimeoutMs { arguments += ["--connection-timeout-ms", String(connectionTimeoutMs)] }
            return arguments
        }
    }

    /// What `GET /control/state` reports.
    public struct State: Sendable, Decodable, Equatable {
        /// Open WebSocket connections.
        public let connections: Int
        /// Active subscriptions, over every connection.
        public let subscriptions: Int
        /// Events published (over HTTP, over WebSocket, and by bursts) since the start or the last reset.
        public let published: Int
        /// `data` messages written since the start or the last reset.
        public let delivered: Int
        /// Whether `ka` messages are stopped (`stop-ka`).
        public let kaStopped: Bool
    }

    /// Whether ``stop()`` ran (not a zero-sized value: see `ProcessLaunches`).
    private let stopped = Locked(false)
    private let process: Process
    private let input: FileHandle

    /// The server's port on 127.0.0.1.
    public let port: Int

    private init(process: Process, input: FileHandle, port: Int) {
        self.process = process
        self.input = input
        self.port = port
    }

    deinit { stop() }

    /// `http://127.0.0.1:<port>/event`, the HTTP publish endpoint.
    public var httpEndpoint: URL { URL(string: "http://127.0.0.1:\(port)/event") ?? URL(fileURLWithPath: "/") }

    /// `ws://127.0.0.1:<port>/event/realtime`, the real-time endpoint.
    public var realtimeEndpoint: URL { URL(string: "ws://127.0.0.1:\(port)/event/realtime") ?? URL(fileURLWithPath: "/") }

    /// Starts a server and waits for its `READY` line, on a thread of its own, so that waiting
    /// for the server (about a second) does not hold one of the few threads Swift's concurrency
    /// runs tests on.
    /// - Parameter options: what the server accepts.
    /// - Returns: the running server.
    /// - Throws: ``AppSyncEventsServerError`` when the venv cannot be made or the server does not start.
    public static func start(_ options: Options = Options()) async throws -> AppSyncEventsServer {
        try await offThePool { try startBlocking(options) }
    }

    private static func startBlocking(_ options: Options) throws -> AppSyncEventsServer {
        let started = try PythonStandIn.start(
            script: "Sources/AmplifyTestKit/AppSyncEvents/appsync_events_server.py", arguments: options.arguments,
            logVariable: "AMPLIFY_APPSYNC_EVENTS_LOG", failure: AppSyncEventsServerError.init)
        return AppSyncEventsServer(process: started.process, input: started.input, port: started.port)
    }

    /// Starts a server, runs `body` with it, and stops it, whether `body` returns or throws.
    /// - Parameters:
    ///   - options: what the server accepts.
    ///   - body: the test.
    /// - Returns: what `body` returns.
    /// - Throws: what ``start(_:)`` or `body` throws.
    public static func with<T>(_ options: Options = Options(), _ body: (AppSyncEventsServer) async throws -> T) async throws -> T {
        let server = try await start(options)
        defer { server.stop() }
        return try await body(server)
    }

    /// POSTs to the control endpoint `/control/<name>` with `query` (and `body`) and returns the answer.
    /// - Parameters:
    ///   - name: `reset`, `drop`, `close`, `stop-ka`, `start-ka`, `truncate`, `burst`, `iam-credentials`.
    ///   - query: its parameters (`["channel": "/default/bench", "count": "20000", "size": "100"]` for `burst`,
    ///     `["code": "4000", "reason": "bye"]` for `close`).
    ///   - body: a JSON body (`iam-credentials`: `{"accessKeyId", "secretAccessKey", "sessionToken"?}`).
    /// - Returns: the answer's JSON (`burst`: `ok`, `subscriptions`, `delivered`, `sentNs`).
    /// - Throws: ``AppSyncEventsServerError`` when the server does not answer 200.
    @discardableResult
    public func control(_ name: String, _ query: [String: String] = [:], body: JSONValue? = nil) throws -> JSONValue {
        let answer = try plainHTTP(method: "POST", target: StandInControl.target(name, query), body: StandInControl.body(body))
        return (try? JSONDecoder().decode(JSONValue.self, from: answer)) ?? .null
    }

    /// `GET /control/state`: the open connections, the subscriptions, and the events published
    /// and delivered since the start or the last `reset`.
    /// - Returns: the state.
    /// - Throws: ``AppSyncEventsServerError`` when the server does not answer or the answer is not a state.
    public func state() throws -> State {
        let answer = try plainHTTP(method: "GET", target: "/control/state", body: Data())
        do {
            return try JSONDecoder().decode(State.self, from: answer)
        } catch {
            throw AppSyncEventsServerError("unexpected /control/state answer: \(String(decoding: answer, as: UTF8.self).prefix(300))")
        }
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

    /// One HTTP/1.1 exchange with the server over a plain socket; the body of a 200 answer.
    private func plainHTTP(method: String, target: String, body: Data) throws -> Data {
        try StandInControl.exchange(
            port: port, name: "AppSync Events stand-in", method: method, target: target, body: body, error: AppSyncEventsServerError.init)
    }
}

/// What went wrong starting or driving the AppSync Events stand-in.
public struct AppSyncEventsServerError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String

    init(_ description: String) { self.description = description }
}
