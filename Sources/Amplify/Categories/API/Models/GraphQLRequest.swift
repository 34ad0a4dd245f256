/// A GraphQL query, mutation or subscription for `Amplify.API`: the document, its variables, the
/// type its data decodes to, and optionally which API, which part of the data and which auth mode.
///
/// ```swift
/// let request = GraphQLRequest<Todo>(
///     document: "query Get($id: ID!) { getTodo(id: $id) { id name } }",
///     variables: ["id": "todo-1"],
///     responseType: Todo.self,
///     decodePath: "getTodo")
/// ```
///
/// Differs from amplify-swift in what Swift 6 requires: `R` is `Sendable` as well as
/// `Decodable` (results travel to other tasks and to Hub listeners), and `variables` is a
/// `[String: any Sendable]` instead of `[String: Any]` (literals, `String`, numbers, `Bool`,
/// arrays and dictionaries of them, `JSONValue`, `Encodable` values and `nil` all work).
public struct GraphQLRequest<R: Decodable & Sendable>: Sendable {
    /// Options the plugin reads.
    public struct Options: Sendable {
        /// Plugin-specific options.
        public let pluginOptions: (any Sendable)?

        /// Options carrying `pluginOptions`.
        public init(pluginOptions: (any Sendable)?) {
            self.pluginOptions = pluginOptions
        }
    }

    /// The API to call by its name in the configuration; `nil` for the only GraphQL API.
    public let apiName: String?
    /// The GraphQL document.
    public let document: String
    /// The operation's variables.
    public let variables: [String: any Sendable]?
    /// What the data (or the part at ``decodePath``) decodes to.
    public let responseType: R.Type
    /// A dotted path into `data` to decode instead of the whole object (`"getTodo"`,
    /// `"listTodos.items"`).
    public let decodePath: String?
    /// The auth mode for this request instead of the API's default.
    public let authMode: (any AuthorizationMode)?
    /// Plugin options.
    public let options: Options?

    /// A request.
    /// - Parameters:
    ///   - apiName: the API's name in the configuration; `nil` for the only GraphQL API.
    ///   - document: the GraphQL document.
    ///   - variables: the operation's variables.
    ///   - responseType: what the data (or the part at `decodePath`) decodes to.
    ///   - decodePath: a dotted path into `data` to decode instead of the whole object.
    ///   - authMode: the auth mode for this request instead of the API's default.
    ///   - options: plugin options.
    public init(
        apiName: String? = nil, document: String, variables: [String: any Sendable]? = nil, responseType: R.Type,
        decodePath: String? = nil, authMode: (any AuthorizationMode)? = nil, options: Options? = nil
    ) {
        self.apiName = apiName
        self.document = document
        self.variables = variables
        self.responseType = responseType
        self.decodePath = decodePath
        self.authMode = authMode
        self.options = options
    }

    /// The variables as JSON: each value converted by ``JSONValue/init(variable:)``.
    /// - Throws: ``APIError/operationError(_:_:_:)`` naming the variable that is not JSON.
    public func variablesJSON() throws -> JSONValue? {
        guard let variables else { return nil }
        var object: [String: JSONValue] = [:]
        for (name, value) in variables {
            do {
                object[name] = try JSONValue(variable: value)
            } catch {
                throw Self.variableError(name, value, error)
            }
        }
        return .object(object)
    }

    /// Appends the variables as a JSON object to `output` — the text of ``variablesJSON()``,
    /// written without building it (strings, booleans and integers without the cast chain of
    /// ``JSONValue/init(variable:)``); `false`, and nothing written, when there are none.
    /// - Throws: ``APIError/operationError(_:_:_:)`` naming the variable that is not JSON.
    package func writeVariablesJSON(into output: inout [UInt8]) throws -> Bool {
        guard let variables else { return false }
        output.append(UInt8(ascii: "{"))
        var first = true
        for (name, value) in variables {
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            JSONValue.writeString(name, into: &output)
            output.append(UInt8(ascii: ":"))
            do {
                // The JSONValue writer formats each value, so both texts agree.
                if let text = value as? String {
                    JSONValue.writeString(text, into: &output)
                } else if let flag = value as? Bool {
                    try JSONValue.boolean(flag).write(into: &output)
                } else if let number = value as? Int {
                    try JSONValue.number(Double(number)).write(into: &output)
                } else {
                    try JSONValue(variable: value).write(into: &output)
                }
            } catch {
                throw Self.variableError(name, value, error)
            }
        }
        output.append(UInt8(ascii: "}"))
        return true
    }

    private static func variableError(_ name: String, _ value: any Sendable, _ error: any Error) -> APIError {
        APIError.operationError(
            "The GraphQL variable `\(name)` (\(type(of: value))) cannot be sent as JSON.",
            "Pass strings, numbers, booleans, arrays and dictionaries of them, JSONValue or Encodable values.", error)
    }
}
