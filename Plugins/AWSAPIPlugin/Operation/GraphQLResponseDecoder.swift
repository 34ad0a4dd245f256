import Amplify
import Foundation

/// Turns a GraphQL response body into a `GraphQLResponse`: data (at the request's decode path)
/// decoded to the response type, errors with partial data, or a transformation error that keeps
/// the raw text.
package enum GraphQLResponseDecoder {
    /// The response for `body`.
    /// - Throws: `APIError.operationError` when the body is not a JSON object.
    package static func decode<R: Decodable & Sendable>(_ body: [UInt8], as type: R.Type, decodePath: String?) throws -> GraphQLResponse<R> {
        let spans = JSONSpans(body)
        // (The object's members are checked as they are listed: no pass over the whole text first.)
        if let root = spans.trimmed(), let fast = fastDecode(spans, body, responseAt: root, as: type, decodePath: decodePath) {
            return .success(fast)
        }
        return try carefulDecode(body, as: type, decodePath: decodePath)
    }

    /// The response for `body`, read whole into a `JSONValue` first (errors, partial data, a
    /// path that is missing, data of the wrong shape, text that is not JSON): what ``decode(_:as:decodePath:)``
    /// falls back on. (Package access: tests compare the two paths.)
    /// - Throws: `APIError.operationError` when the body is not a JSON object.
    package static func carefulDecode<R: Decodable & Sendable>(_ body: [UInt8], as type: R.Type, decodePath: String?) throws -> GraphQLResponse<R> {
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
    /// payload (at `payload` when the caller found it already) decoded in one pass, or, when that
    /// fails, taken out and read the careful way.
    /// - Throws: ``APIError`` when the message or its payload is not a GraphQL response.
    package static func decodeDataMessage<R: Decodable & Sendable>(
        _ message: [UInt8], payload: Range<Int>? = nil, as type: R.Type, decodePath: String?
    ) throws -> GraphQLResponse<R> {
        let spans = JSONSpans(message)
        if let payload = payload ?? spans.trimmed().flatMap({ spans.value(ofKey: "payload".utf8, in: $0) }),
            let fast = fastDecode(spans, message, responseAt: payload, as: type, decodePath: decodePath)
        {
            return .success(fast)
        }
        guard let json = try? JSONDecoder().decode(JSONValue.self, from: Data(message)), let payload = json["payload"] else {
            throw APIError.operationError("A data message is not JSON with a payload: \(snippet(message)).", "Check the real-time endpoint.")
        }
        return try decode(payload.jsonBytes(), as: type, decodePath: decodePath)
    }

    /// The common case: a response with `data` and no `errors`, whose part at the decode path
    /// decodes to `R` — found by its bytes (``JSONSpans``) and decoded alone: the value (no
    /// `GraphQLResponse` yet, whose generic types cost a look-up each). `nil` when anything
    /// is unusual (errors, no data, null data, a path that is not there, `R` does not decode,
    /// `String`, text that is not plainly JSON): the careful path then says what.
    private static func fastDecode<R: Decodable & Sendable>(
        _ spans: JSONSpans, _ body: [UInt8], responseAt response: Range<Int>, as type: R.Type, decodePath: String?
    ) -> R? {
        guard R.self != String.self, let members = spans.values(of: responseKeys, in: response), members[1] == nil,
            var span = members[0], !spans.isNull(span)
        else { return nil }
        // The path's parts, split at dots without making strings: a part of digits is an array
        // position where the value is an array, anything else a key (as the careful path reads it;
        // a part it reads otherwise, `+1` say, finds nothing here and goes there).
        var rest = (decodePath ?? "").utf8[...]
        while !rest.isEmpty {
            let part = rest.prefix { $0 != UInt8(ascii: ".") }
            rest = rest.dropFirst(part.count + (part.count < rest.count ? 1 : 0))
            guard !part.isEmpty else { continue }
            if spans.isArray(span), let position = position(part) {
                guard let next = spans.element(position, of: span) else { return nil }
                span = next
            } else {
                guard let next = spans.value(ofKey: part, in: span) else { return nil }
                span = next
            }
        }
        return JSONSpanDecoder.decode(R.self, from: spans, at: span) ?? (try? JSONDecoder().decode(R.self, from: Data(body[span])))
    }

    /// The members a response is read by.
    private static let responseKeys = ["data", "errors"]

    /// The array position a decode-path part of ASCII digits names; `nil` for anything else or
    /// a number that does not fit.
    private static func position(_ part: Substring.UTF8View) -> Int? {
        var value = 0
        for byte in part {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = next
        }
        return value
    }

    private static func decodeData<R: Decodable & Sendable>(_ data: JSONValue, as type: R.Type, decodePath: String?) -> Result<R, APIError> {
        var value = data
        if let decodePath, !decodePath.isEmpty {
            for part in decodePath.split(separator: ".", omittingEmptySubsequences: true) {
                let next = Int(part).flatMap { value[$0] } ?? value[String(part)]
                guard let next else {
                    return .failure(
                        .operationError(
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
            return .failure(
                .operationError(
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
