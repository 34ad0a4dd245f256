import Amplify
import Foundation

/// Turns a GraphQL response body into a `GraphQLResponse`: data (at the request's decode path)
/// decoded to the response type, errors with partial data, or a transformation error that keeps
/// the raw text.
package enum GraphQLResponseDecoder {
    /// The response for `body`.
    /// - Throws: `APIError.operationError` when the body is not a JSON object.
    package static func decode<R: Decodable & Sendable>(_ body: [UInt8], as type: R.Type, decodePath: String?) throws -> GraphQLResponse<R> {
        if let fast = fastDecode(body, as: type, decodePath: decodePath) { return fast }
        let json: JSONValue
        do {
            json = try JSONDecoder().decode(JSONValue.self, from: Data(body))
        } catch {
            throw APIError.operationError(
                "The GraphQL endpoint answered with something that is not JSON: \(snippet(body)).",
                "Check that the endpoint is an AppSync GraphQL API (…/graphql).", error)
        }
        guard let object = json.asObject, object["data"] != nil || object["errors"] != nil else {
            throw APIError.operationError(
                "The GraphQL endpoint answered with JSON that has neither `data` nor `errors`: \(snippet(body)).",
                "Check that the endpoint is an AppSync GraphQL API (…/graphql).")
        }
        let errors = object["errors"]?.asArray.map { $0.map { GraphQLError(json: $0.asObject ?? ["message": $0]) } }
        let raw = String(decoding: body, as: UTF8.self)
        // (JSONValue is ExpressibleByNilLiteral: compare with .null, never map it to `nil`.)
        guard let data = object["data"], data != .null else {
            return .failure(.error(errors ?? []))
        }
        let decoded: Result<R, APIError> = decodeData(data, as: type, decodePath: decodePath)
        switch (decoded, errors) {
        case (.success(let value), nil), (.success(let value), .some([])):
            return .success(value)
        case (.success(let value), .some(let errors)):
            return .failure(.partial(value, errors))
        case (.failure, .some(let errors)) where !errors.isEmpty:
            // The errors say why the data is incomplete; they are worth more than a decoding error.
            return .failure(.error(errors))
        case (.failure(let error), _):
            return .failure(.transformationError(raw, error))
        }
    }

    /// The response in a real-time `data` message (`{"id", "type": "data", "payload": {…}}`): its
    /// payload decoded in one pass, or, when that fails, taken out and read the careful way.
    /// - Throws: ``APIError`` when the message or its payload is not a GraphQL response.
    package static func decodeDataMessage<R: Decodable & Sendable>(_ message: [UInt8], as type: R.Type, decodePath: String?) throws -> GraphQLResponse<R> {
        if R.self != String.self, let key = CodingUserInfoKey(rawValue: pathKeyName) {
            let decoder = JSONDecoder()
            decoder.userInfo[key] = decodePath.map { $0.split(separator: ".", omittingEmptySubsequences: true).map(String.init) } ?? []
            if let wrapped = try? decoder.decode(PayloadOf<R>.self, from: Data(message)), let envelope = wrapped.payload, envelope.hasMember,
               let response = response(envelope) {
                return response
            }
        }
        guard let json = try? JSONDecoder().decode(JSONValue.self, from: Data(message)), let payload = json["payload"] else {
            throw APIError.operationError("A data message is not JSON with a payload: \(snippet(message)).", "Check the real-time endpoint.")
        }
        return try decode(payload.jsonBytes(), as: type, decodePath: decodePath)
    }

    private static func response<R: Decodable & Sendable>(_ envelope: Envelope<R>) -> GraphQLResponse<R>? {
        switch (envelope.data?.value, envelope.errors) {
        case (.some(let value), nil), (.some(let value), .some([])): return .success(value)
        case (.some(let value), .some(let errors)): return .failure(.partial(value, errors))
        case (nil, let errors): return .failure(.error(errors ?? []))
        }
    }

    /// The common case in one pass: `data` (at the decode path) straight into `R`, and `errors`.
    /// `nil` when anything is unusual (not JSON, neither member, `R` does not decode, `String`):
    /// the careful path then says what.
    private static func fastDecode<R: Decodable & Sendable>(_ body: [UInt8], as type: R.Type, decodePath: String?) -> GraphQLResponse<R>? {
        guard R.self != String.self else { return nil }
        guard let key = CodingUserInfoKey(rawValue: pathKeyName) else { return nil }
        let decoder = JSONDecoder()
        decoder.userInfo[key] = decodePath.map { $0.split(separator: ".", omittingEmptySubsequences: true).map(String.init) } ?? []
        guard let envelope = try? decoder.decode(Envelope<R>.self, from: Data(body)), envelope.hasMember else { return nil }
        return response(envelope)
    }

    private static func decodeData<R: Decodable & Sendable>(_ data: JSONValue, as type: R.Type, decodePath: String?) -> Result<R, APIError> {
        var value = data
        if let decodePath, !decodePath.isEmpty {
            for part in decodePath.split(separator: ".", omittingEmptySubsequences: true) {
                let next = Int(part).flatMap { value[$0] } ?? value[String(part)]
                guard let next else {
                    return .failure(.operationError(
                        "The response's data has nothing at the decode path `\(decodePath)` (no `\(part)`).",
                        "Check the request's decodePath against the fields the document selects."))
                }
                value = next
            }
        }
        if let value = value as? R { return .success(value) }
        do {
            let bytes = try JSONEncoder().encode(value)
            if R.self == String.self, let text = String(decoding: bytes, as: UTF8.self) as? R { return .success(text) }
            return .success(try JSONDecoder().decode(R.self, from: bytes))
        } catch {
            return .failure(.operationError(
                "The response's data\(decodePath.map { " at `\($0)`" } ?? "") does not decode to \(R.self): \(describe(error))",
                "Make \(R.self) match the fields the document selects (optional where the schema allows null).", error))
        }
    }

    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func where_(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            return path.isEmpty ? "" : " at `\(path)`"
        }
        switch error {
        case .keyNotFound(let key, let context): return "no `\(key.stringValue)`\(where_(context))"
        case .valueNotFound(_, let context): return "null\(where_(context)) where a value is required"
        case .typeMismatch(let type, let context): return "\(type) expected\(where_(context))"
        case .dataCorrupted(let context): return "\(context.debugDescription)\(where_(context))"
        @unknown default: return "\(error)"
        }
    }

    /// The first 120 characters of `body`, printable.
    static func snippet(_ body: [UInt8]) -> String {
        if body.isEmpty { return "an empty body" }
        let text = String(decoding: body.prefix(120), as: UTF8.self).map { $0.isNewline ? " " : String($0) }.joined()
        return "\"\(text)\(body.count > 120 ? "…" : "")\""
    }
}

/// The user-info key that carries the decode path to ``PathDecoded``.
private let pathKeyName = "amplify.graphQLDecodePath"

/// A real-time message's `payload`.
private struct PayloadOf<R: Decodable>: Decodable {
    let payload: Envelope<R>?
}

/// `{"data": …, "errors": […]}` with `data` decoded at the decode path.
private struct Envelope<R: Decodable>: Decodable {
    let data: PathDecoded<R>?
    let errors: [GraphQLError]?
    let hasMember: Bool

    private enum CodingKeys: String, CodingKey { case data, errors }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        hasMember = container.contains(.data) || container.contains(.errors)
        data = try container.decodeIfPresent(PathDecoded<R>.self, forKey: .data)
        errors = try container.decodeIfPresent([GraphQLError].self, forKey: .errors)
    }
}

/// `R` decoded at the path in the decoder's user info (object members; a numeric segment is an
/// array index).
private struct PathDecoded<R: Decodable>: Decodable {
    let value: R

    init(from decoder: any Decoder) throws {
        let path = decoder.userInfo.first { $0.key.rawValue == pathKeyName }?.value as? [String] ?? []
        value = try Self.decode(decoder, ArraySlice(path))
    }

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private static func decode(_ decoder: any Decoder, _ path: ArraySlice<String>) throws -> R {
        guard let first = path.first else { return try R(from: decoder) }
        if let index = Int(first), var list = try? decoder.unkeyedContainer() {
            for _ in 0..<index { _ = try list.decode(JSONValue.self) }
            return try decode(list.superDecoder(), path.dropFirst())
        }
        let container = try decoder.container(keyedBy: Key.self)
        return try decode(container.superDecoder(forKey: Key(stringValue: first)), path.dropFirst())
    }
}
