import AWSAPIPlugin
import AWSPluginsCore
import AmplifyConcurrency
import AmplifyPlugins
import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `amplify api …`: GraphQL queries, mutations and subscriptions, and REST calls, through the
/// configured API plugin.
struct APIGroup: CommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "api", abstract: "GraphQL (AppSync) and REST (API Gateway) APIs.",
        subcommands: [
            APICommands.Query.self, APICommands.Mutate.self, APICommands.Subscribe.self, APICommands.Get.self, APICommands.Post.self,
            APICommands.Put.self, APICommands.Patch.self, APICommands.Delete.self,
        ])
}

/// What the GraphQL commands share: the document, its variables, the API and the auth mode.
struct GraphQLOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The GraphQL document, or @FILE to read it from a file.", valueName: "document")) var document: String
    @Option(help: ArgumentHelp("The variables: a JSON object, or @FILE.", valueName: "json")) var variables: String?
    @Option(help: ArgumentHelp("The API's name in the configuration (default: the only GraphQL API).", valueName: "name")) var api: String?
    @Option(
        name: .customLong("auth-mode"),
        help: ArgumentHelp("API_KEY, AWS_IAM, AMAZON_COGNITO_USER_POOLS, OPENID_CONNECT, AWS_LAMBDA or NONE (default: the API's).", valueName: "mode")
    )
    var authMode: String?
    @Option(name: .customLong("decode-path"), help: ArgumentHelp("Print only this part of the data (listTodos.items).", valueName: "path"))
    var decodePath: String?

    func validate() throws {
        _ = try mode()
    }

    /// The auth mode by its configuration name (or Amplify JS's: apiKey, iam, userPool, oidc, lambda, none).
    func mode() throws -> AWSAuthorizationType? { try APICommands.mode(authMode) }

    /// The request.
    /// - Throws: ``UsageError`` when the document or the variables cannot be read.
    func request() throws -> GraphQLRequest<JSONValue> {
        let text = try APICommands.text(document, what: "the document")
        var variablesObject: [String: any Sendable]?
        if let variables {
            let json = try APICommands.text(variables, what: "the variables")
            guard let parsed = try? JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)), let object = parsed.asObject else {
                throw UsageError("--variables needs a JSON object (or @FILE holding one).")
            }
            variablesObject = object
        }
        return GraphQLRequest(
            apiName: api, document: text, variables: variablesObject, responseType: JSONValue.self, decodePath: decodePath, authMode: try mode())
    }
}

/// `--count` and `--timeout` of the commands that print a stream until told to stop.
struct StreamLimits: ParsableArguments {
    @Option(help: ArgumentHelp("Stop after this many events.", valueName: "number")) var count: Int?
    @Option(help: ArgumentHelp("Stop after this many seconds.", valueName: "seconds")) var timeout: Int?

    func validate() throws {
        if let count, count <= 0 { throw ValidationError("--count needs a positive whole number; got '\(count)'.") }
        if let timeout, timeout <= 0 { throw ValidationError("--timeout needs a positive whole number; got '\(timeout)'.") }
    }
}

/// The `amplify api` commands.
enum APICommands {
    /// Before configuring: the API plugin with tokens for `OPENID_CONNECT` and `AWS_LAMBDA` from
    /// `$AMPLIFY_API_TOKEN` (a token never comes from the command line).
    static func addPlugin() throws {
        let token = ProcessInfo.processInfo.environment["AMPLIFY_API_TOKEN"].map { EnvironmentToken(token: $0) }
        try Amplify.add(plugin: AWSAPIPlugin(apiAuthProviderFactory: APIAuthProviderFactory(oidc: token, function: token)))
    }

    /// Configures Amplify with that plugin; for the commands that do not use the default flow.
    static func configure(_ global: GlobalOptions) throws {
        try addPlugin()
        try Amplify.configure(CLIConfiguration.load(global))
    }

    /// `--auth-mode`'s value by its configuration name (or Amplify JS's: apiKey, iam, userPool,
    /// oidc, lambda, none).
    /// - Throws: `ValidationError` naming the modes.
    static func mode(_ authMode: String?) throws -> AWSAuthorizationType? {
        guard let authMode else { return nil }
        let aliases = [
            "apikey": "API_KEY", "iam": "AWS_IAM", "userpool": "AMAZON_COGNITO_USER_POOLS", "oidc": "OPENID_CONNECT", "lambda": "AWS_LAMBDA",
            "none": "NONE",
        ]
        let name = aliases[authMode.lowercased()] ?? authMode.uppercased()
        guard let mode = AWSAuthorizationType(rawValue: name) else {
            throw ValidationError(
                "--auth-mode takes API_KEY, AWS_IAM, AMAZON_COGNITO_USER_POOLS, OPENID_CONNECT, AWS_LAMBDA or NONE; got '\(authMode)'.")
        }
        return mode
    }

    /// `text` itself, or the contents of the file it names after `@` (`-` for standard input).
    /// - Throws: ``UsageError`` when the file cannot be read.
    static func text(_ value: String, what: String) throws -> String {
        guard value.hasPrefix("@") else { return value == "-" ? standardInput() : value }
        let path = String(value.dropFirst())
        if path == "-" { return standardInput() }
        guard let data = FileManager.default.contents(atPath: path) else { throw UsageError("Cannot read \(what) from \(path).") }
        return String(decoding: data, as: UTF8.self)
    }

    static func standardInput() -> String {
        String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
    }

    /// A response: the data (with `--json`, `{"data": …}`). GraphQL errors are a failure (exit 1),
    /// after the partial data in text mode.
    static func result(_ response: GraphQLResponse<JSONValue>, json: Bool) throws -> CommandResult {
        let (data, errors): (JSONValue, [GraphQLError]) =
            switch response {
            case .success(let value): (value, [])
            case .failure(.partial(let value, let errors)): (value, errors)
            case .failure(.error(let errors)): (.null, errors)
            case .failure(let other): throw other
            }
        if !errors.isEmpty {
            if !data.isNull, !json { Output.line(pretty(data)) }
            throw GraphQLErrorsFailure(errors: errors)
        }
        return CommandResult(text: pretty(data), json: ["data": data])
    }

    static func errorJSON(_ error: GraphQLError) -> JSONValue {
        var object: [String: JSONValue] = ["message": .string(error.message)]
        if let path = error.path { object["path"] = .array(path) }
        if let type = error.errorType { object["errorType"] = .string(type) }
        return .object(object)
    }

    static func pretty(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    struct Query: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "query", abstract: "Run a GraphQL query.",
            discussion: "Prints the data as JSON (with --json: {\"data\": …}). GraphQL errors go to stderr and exit 1, after any partial data.")
        static var needsConfiguration: Bool { false }
        @OptionGroup var global: GlobalOptions
        @OptionGroup var graphQL: GraphQLOptions

        func execute() async throws -> CommandResult {
            try APICommands.configure(global)
            return try APICommands.result(try await Amplify.API.query(request: graphQL.request()), json: global.json)
        }
    }

    struct Mutate: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "mutate", abstract: "Run a GraphQL mutation.",
            discussion: "Prints the data as JSON (with --json: {\"data\": …}). GraphQL errors go to stderr and exit 1, after any partial data.")
        static var needsConfiguration: Bool { false }
        @OptionGroup var global: GlobalOptions
        @OptionGroup var graphQL: GraphQLOptions

        func execute() async throws -> CommandResult {
            try APICommands.configure(global)
            return try APICommands.result(try await Amplify.API.mutate(request: graphQL.request()), json: global.json)
        }
    }

    struct Subscribe: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "subscribe", abstract: "Print a subscription's events as JSON lines.",
            discussion: """
                Prints one JSON line per connection state ({"connection": "connecting"}) and per event ({"data": …, \
                "errors": […]}) until --count events arrived, --timeout seconds passed, or Ctrl-C (which stops the \
                subscription cleanly; exit 0).
                """)
        static var needsConfiguration: Bool { false }
        @OptionGroup var global: GlobalOptions
        @OptionGroup var graphQL: GraphQLOptions
        @OptionGroup var limits: StreamLimits

        func execute() async throws -> CommandResult {
            try APICommands.configure(global)
            let sequence = Amplify.API.subscribe(request: try graphQL.request())
            let stop = StopSignals(timeout: limits.timeout) { sequence.cancel() }
            defer { stop.restore() }
            var received = 0
            for try await event in sequence {
                switch event {
                case .connection(let state):
                    Output.line((["connection": .string(state.rawValue)] as JSONValue).compactText)
                case .data(let response):
                    let line: JSONValue =
                        switch response {
                        case .success(let data): ["data": data]
                        case .failure(.partial(let data, let errors)): ["data": data, "errors": .array(errors.map(APICommands.errorJSON))]
                        case .failure(.error(let errors)): ["data": .null, "errors": .array(errors.map(APICommands.errorJSON))]
                        case .failure(let other): ["error": .string(other.errorDescription)]
                        }
                    Output.line(line.compactText)
                    received += 1
                    if let count = limits.count, received >= count { sequence.cancel() }
                }
            }
            return CommandResult(text: "", json: .null)
        }
    }

    /// What the REST commands share.
    struct RESTOptions: ParsableArguments {
        @Argument(help: ArgumentHelp("The path below the API's endpoint (/items/42).", valueName: "path")) var path: String
        @Option(help: ArgumentHelp("The API's name in the configuration (default: the only REST API).", valueName: "name")) var api: String?
        @Option(name: .customLong("header"), help: ArgumentHelp("A header, NAME:VALUE (repeatable).", valueName: "header")) var headers: [String] = []
        @Option(name: .customLong("query"), help: ArgumentHelp("A query parameter, NAME=VALUE (repeatable).", valueName: "parameter")) var queries:
            [String] = []

        func validate() throws {
            for header in headers where !header.contains(":") { throw ValidationError("--header takes NAME:VALUE; got '\(header)'.") }
            for query in queries where !query.contains("=") { throw ValidationError("--query takes NAME=VALUE; got '\(query)'.") }
        }

        func request(body: Data?) -> RESTRequest {
            var headerFields: [String: String] = [:]
            for header in headers {
                let parts = header.split(separator: ":", maxSplits: 1)
                headerFields[String(parts[0]).trimmingCharacters(in: .whitespaces)] =
                    parts.count > 1 ? String(parts[1]).trimmingCharacters(in: .whitespaces) : ""
            }
            var parameters: [String: String] = [:]
            for query in queries {
                let parts = query.split(separator: "=", maxSplits: 1)
                parameters[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
            }
            return RESTRequest(
                apiName: api, path: path, headers: headerFields.isEmpty ? nil : headerFields,
                queryParameters: parameters.isEmpty ? nil : parameters, body: body)
        }
    }

    /// The body of a REST answer: as it is on stdout (text), or `{"status": 200, "body": …}` with `--json`.
    static func restResult(_ data: Data) -> CommandResult {
        let body: JSONValue = (try? JSONDecoder().decode(JSONValue.self, from: data)) ?? .string(String(decoding: data, as: UTF8.self))
        return CommandResult(text: String(decoding: data, as: UTF8.self), json: ["body": body])
    }

    static func body(_ value: String?) throws -> Data? {
        guard let value else { return nil }
        return Data(try text(value, what: "the body").utf8)
    }

    struct Get: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "get", abstract: "REST GET.",
            discussion: "Prints the answer's body; a status outside 200–299 is an error (exit 1) with the body.")
        static var needsConfiguration: Bool { false }
        @OptionGroup var global: GlobalOptions
        @OptionGroup var rest: RESTOptions
        func execute() async throws -> CommandResult {
            try APICommands.configure(global)
            return APICommands.restResult(try await Amplify.API.get(request: rest.request(body: nil)))
        }
    }

    struct Delete: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete", abstract: "REST DELETE.",
            discussion: "Prints the answer's body; a status outside 200–299 is an error (exit 1) with the body.")
        static var needsConfiguration: Bool { false }
        @OptionGroup var global: GlobalOptions
        @OptionGroup var rest: RESTOptions
        func execute() async throws -> CommandResult {
            try APICommands.configure(global)
            return APICommands.restResult(try await Amplify.API.delete(request: rest.request(body: nil)))
        }
    }

    struct Post: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "post", abstract: "REST POST.", discussion: "Sends --body (text, @FILE, or - for standard input); prints the answer's body.")
        static var needsConfiguration: Bool { false }
        @OptionGroup var global: GlobalOptions
        @OptionGroup var rest: RESTOptions
        @Option(help: ArgumentHelp("The body: text, @FILE, or - for standard input.", valueName: "body")) var body: String?
        func execute() async throws -> CommandResult {
            try APICommands.configure(global)
            return APICommands.restResult(try await Amplify.API.post(request: rest.request(body: APICommands.body(body))))
        }
    }

    struct Put: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "put", abstract: "REST PUT.", discussion: "Sends --body (text, @FILE, or - for standard input); prints the answer's body.")
        static var needsConfiguration: Bool { false }
        @OptionGroup var global: GlobalOptions
        @OptionGroup var rest: RESTOptions
        @Option(help: ArgumentHelp("The body: text, @FILE, or - for standard input.", valueName: "body")) var body: String?
        func execute() async throws -> CommandResult {
            try APICommands.configure(global)
            return APICommands.restResult(try await Amplify.API.put(request: rest.request(body: APICommands.body(body))))
        }
    }

    struct Patch: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "patch", abstract: "REST PATCH.",
            discussion: "Sends --body (text, @FILE, or - for standard input); prints the answer's body.")
        static var needsConfiguration: Bool { false }
        @OptionGroup var global: GlobalOptions
        @OptionGroup var rest: RESTOptions
        @Option(help: ArgumentHelp("The body: text, @FILE, or - for standard input.", valueName: "body")) var body: String?
        func execute() async throws -> CommandResult {
            try APICommands.configure(global)
            return APICommands.restResult(try await Amplify.API.patch(request: rest.request(body: APICommands.body(body))))
        }
    }
}

/// GraphQL errors in an answer: printed on stderr, exit 1.
struct GraphQLErrorsFailure: AmplifyError {
    let errors: [GraphQLError]

    var errorDescription: String {
        errors.map { error in
            (error.errorType.map { "\($0): " } ?? "") + error.message
                + (error.path.map { " (at \($0.map { $0.stringValue ?? $0.intValue.map(String.init) ?? "?" }.joined(separator: ".")))" } ?? "")
        }.joined(separator: "\n")
    }
    var recoverySuggestion: String { "The server answered with GraphQL errors; fields they name are null in the data." }
    var underlyingError: (any Error)? { errors.first }
}

/// A token from the environment for `OPENID_CONNECT` and `AWS_LAMBDA`.
struct EnvironmentToken: AmplifyOIDCAuthProvider, AmplifyFunctionAuthProvider {
    let token: String
    func getLatestAuthToken() async throws -> String { token }
}

/// While a subscription runs: SIGINT, SIGTERM and SIGHUP (and, when given, a timeout) call `action` (once) instead of ending
/// the process, so the subscription stops and the command ends cleanly.
final class StopSignals: @unchecked Sendable {
    // @unchecked Sendable: the sources are set up in init and cancelled in `restore`, both on the
    // calling task; their handlers run on the dispatch queue and only call `action`, once.
    private var sources: [any DispatchSourceSignal] = []
    private let fired = Locked(false)

    /// Watches the signals, and with `timeout` (seconds) also calls `action` once that has passed.
    init(timeout: Int? = nil, _ action: @escaping @Sendable () -> Void) {
        let fired = self.fired
        let once: @Sendable () -> Void = {
            guard
                fired.withLock({ value in
                    defer { value = true }
                    return !value
                })
            else { return }
            action()
        }
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler(handler: once)
            source.resume()
            sources.append(source)
        }
        if let timeout {
            Task {
                try? await Task.sleep(for: .seconds(timeout))
                once()
            }
        }
    }

    /// Stops watching and gives the signals their default action back.
    func restore() {
        for source in sources { source.cancel() }
        sources.removeAll()
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] { signal(signalNumber, SIG_DFL) }
    }
}
