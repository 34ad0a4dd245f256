/// One entry of a GraphQL response's `errors`: its message, where in the document, which field,
/// and everything else the server added (AppSync's `errorType`, `errorInfo` and `data` are kept
/// in ``extensions`` beside any `extensions` object, as amplify-swift does).
public struct GraphQLError: Decodable, Sendable, Equatable, Error {
    /// A place in the document.
    public struct Location: Decodable, Sendable, Equatable {
        /// The line, from 1.
        public let line: Int
        /// The column, from 1.
        public let column: Int

        /// A location.
        public init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }
    }

    /// The server's message.
    public let message: String
    /// Where in the document the error is.
    public let locations: [Location]?
    /// The path of the field that failed (names and list indices).
    public let path: [JSONValue]?
    /// The `extensions` object and every other member the server sent (`errorType`, ...).
    public let extensions: [String: JSONValue]?

    /// An error.
    public init(message: String, locations: [Location]? = nil, path: [JSONValue]? = nil, extensions: [String: JSONValue]? = nil) {
        self.message = message
        self.locations = locations
        self.path = path
        self.extensions = extensions
    }

    /// Decodes one error object; members other than `message`, `locations`, `path` and
    /// `extensions` go into ``extensions``.
    /// - Throws: `DecodingError` when it is not an object.
    public init(from decoder: any Decoder) throws {
        let value = try JSONValue(from: decoder)
        guard let object = value.asObject else {
            throw DecodingError.typeMismatch(
                GraphQLError.self, .init(codingPath: decoder.codingPath, debugDescription: "A GraphQL error is an object."))
        }
        self.init(json: object)
    }

    /// The error an object of a response's `errors` array describes.
    public init(json object: [String: JSONValue]) {
        message = object["message"]?.stringValue ?? "(no message)"
        locations = object["locations"]?.asArray?.compactMap { location in
            guard let line = location["line"]?.intValue, let column = location["column"]?.intValue else { return nil }
            return Location(line: line, column: column)
        }
        path = object["path"]?.asArray
        var extra = object["extensions"]?.asObject ?? [:]
        for (key, member) in object where !["message", "locations", "path", "extensions"].contains(key) {
            extra[key] = member
        }
        extensions = extra.isEmpty ? nil : extra
    }

    /// AppSync's `errorType` (`Unauthorized`, `DynamoDB:ConditionalCheckFailedException`, ...), if any.
    public var errorType: String? { extensions?["errorType"]?.stringValue }
}
