import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A `Decoder` that reads a value straight from its bytes in a JSON text (a ``JSONSpans`` range):
/// objects are listed member by member when a keyed container is asked for, each value is
/// converted when it is decoded, and nothing else is built — no JSON tree, no dictionary of keys.
/// For the small objects of GraphQL responses this is several times cheaper than `JSONDecoder`.
///
/// It only ever succeeds where `JSONDecoder` (default strategies) gives the same value: anything
/// it does not treat exactly alike — `Date`, `Data`, `URL` and `Decimal` (which `JSONDecoder`
/// decodes its own way), a number with a fraction or exponent read as an integer, a key with an
/// escape or a key twice, a lone surrogate — throws, and the caller decodes with `JSONDecoder`,
/// which gives the value or the error. Values the type does not read are checked for their
/// extent only (as ``JSONSpans`` checks the rest of a response); every value read is checked in
/// full.
package enum JSONSpanDecoder {
    /// `T` decoded from the value at `span` of `spans`' text; `nil` when it does not decode or
    /// this decoder does not decide (anywhere in the value, even where `T` caught the error):
    /// decode with `JSONDecoder` then.
    package static func decode<T: Decodable>(_ type: T.Type, from spans: JSONSpans, at span: Range<Int>) -> T? {
        guard spans.isStrictlyValid(span) else { return nil }
        let state = DecodeState()
        let value = try? SpanValueDecoder(spans: spans, span: span, parentPath: [], key: nil, state: state).decodeValue(T.self)
        return state.undecided ? nil : value
    }
}

/// Whether any part of one decoding met something this decoder does not decide.
private final class DecodeState {
    var undecided = false
}

/// The coding key of an array element.
private struct ElementKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

/// The coding key `super` (what `superDecoder()` uses, as in `JSONDecoder`).
private struct SuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) { nil }
    init?(intValue: Int) { nil }
}

/// One value's decoder: its span and where it sits (its container's path and its own key, put
/// together only when asked: decoding a member makes no array).
private struct SpanValueDecoder: Decoder {
    let spans: JSONSpans
    let span: Range<Int>
    let parentPath: [any CodingKey]
    let key: (any CodingKey)?
    let state: DecodeState

    var path: [any CodingKey] { key.map { parentPath + [$0] } ?? parentPath }
    var codingPath: [any CodingKey] { path }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    var first: UInt8 { span.isEmpty ? 0 : spans.bytes[span.lowerBound] }
    var isNull: Bool { spans.isNull(span) }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard first == UInt8(ascii: "{") else { throw mismatch([String: Any].self) }
        var members: [SpanMember] = []
        members.reserveCapacity(8)
        let plain = spans.forEachMember(of: span) { key, value in
            members.append(SpanMember(key: key, value: value))
            return true
        }
        guard plain else { throw undecided("an object it does not read plainly") }
        // A key that is not ASCII (JSONDecoder makes it a String first) or a key twice (which one
        // JSONDecoder takes is its business).
        for member in members where spans.bytes[member.key].contains(where: { $0 >= 0x80 }) { throw undecided("a key that is not ASCII") }
        if members.count > 1 {
            guard members.count <= 64 else { throw undecided("an object with more than 64 members") }
            for later in 1..<members.count {
                for earlier in 0..<later where spans.bytes[members[earlier].key].elementsEqual(spans.bytes[members[later].key]) {
                    throw undecided("a key twice")
                }
            }
        }
        return KeyedDecodingContainer(SpanKeyedContainer<Key>(decoder: self, path: path, members: members))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard first == UInt8(ascii: "[") else { throw mismatch([Any].self) }
        var elements: [Range<Int>] = []
        elements.reserveCapacity(8)
        let plain = spans.forEachElement(of: span) { element in
            elements.append(element)
            return true
        }
        guard plain else { throw undecided("an array it does not read plainly") }
        return SpanUnkeyedContainer(decoder: self, path: path, elements: elements)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    /// The decoder of a member or element at `span`, in a container whose path is `path`.
    func child(_ span: Range<Int>, _ key: any CodingKey, in path: [any CodingKey]) -> SpanValueDecoder {
        SpanValueDecoder(spans: spans, span: span, parentPath: path, key: key, state: state)
    }

    /// Marks the decoding undecided (the caller then asks `JSONDecoder`) and gives the error to throw.
    func undecided(_ what: String) -> DecodingError {
        state.undecided = true
        return .dataCorrupted(DecodingError.Context(codingPath: path, debugDescription: "JSONSpanDecoder: \(what)"))
    }

    func mismatch(_ type: Any.Type) -> DecodingError {
        isNull
            ? .valueNotFound(type, DecodingError.Context(codingPath: path, debugDescription: "null"))
            : .typeMismatch(type, DecodingError.Context(codingPath: path, debugDescription: "another kind of value"))
    }

    // MARK: Values

    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        // JSONDecoder reads these its own way (dates and data by strategy, URLs and decimals from
        // their text).
        if T.self == Date.self || T.self == Data.self || T.self == URL.self || T.self == Decimal.self {
            throw undecided("\(T.self)")
        }
        // An optional without Optional's own init (a single-value container, `decodeNil`, then
        // the wrapped type through the container's generic path): what generated models ask
        // for with `decode(Int?.self, forKey:)`.
        if let optional = T.self as? any SpanOptional.Type, let value = try optional.decodeOptional(from: self) as? T {
            return value
        }
        return try T(from: self)
    }

    func decodeBool() throws -> Bool {
        if span.count == 4, spans.bytes[span].elementsEqual("true".utf8) { return true }
        if span.count == 5, spans.bytes[span].elementsEqual("false".utf8) { return false }
        throw mismatch(Bool.self)
    }

    func decodeString() throws -> String {
        guard first == UInt8(ascii: "\""), span.count >= 2 else { throw mismatch(String.self) }
        let body = (span.lowerBound + 1)..<(span.upperBound - 1)
        // (The span was checked whole: no control character, escapes well formed; UTF-8 is
        // checked here, as JSONDecoder checks the strings it reads.)
        guard let text = String(validating: spans.bytes[body], as: UTF8.self) else { throw undecided("a string that is not UTF-8") }
        guard spans.bytes[body].contains(UInt8(ascii: "\\")) else { return text }
        // Escapes: the core's strict JSON parser reads the string (it refuses what JSONDecoder
        // might read otherwise, a lone surrogate say: then JSONDecoder decides).
        guard let value = try? JSONValue(parsing: Array(spans.bytes[span])), case .string(let unescaped) = value else {
            throw undecided("a string the strict parser does not read")
        }
        return unescaped
    }

    /// The number's bytes, and whether it is a plain integer. (The span was checked whole: a value
    /// that starts with `-` or a digit is a well-formed JSON number.)
    private func number() throws -> (ArraySlice<UInt8>, integer: Bool) {
        guard first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { throw mismatch(Double.self) }
        let bytes = spans.bytes[span]
        return (bytes, !bytes.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") })
    }

    func decodeInteger<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        let (bytes, integer) = try number()
        guard integer else { throw undecided("a number with a fraction or exponent read as \(I.self)") }
        var digits = bytes[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative {
            guard I.isSigned else { throw undecided("a negative number read as \(I.self)") }
            digits = digits.dropFirst()
        }
        var value: I = 0
        for byte in digits {
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let digit = I(byte - UInt8(ascii: "0"))
            let (next, overflow2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { throw undecided("a number that does not fit \(I.self)") }
            value = next
        }
        return value
    }

    func decodeFloatingPoint<F: BinaryFloatingPoint>(_ type: F.Type, _ parse: (UnsafePointer<CChar>) -> F) throws -> F {
        let (bytes, _) = try number()
        // Foundation's JSONDecoder refuses `0e1`…`0e9` (valid JSON): a zero with an exponent is
        // left to it, whatever it makes of it.
        if bytes.drop(while: { $0 == UInt8(ascii: "-") }).first == UInt8(ascii: "0"),
            bytes.contains(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") })
        {
            throw undecided("a zero with an exponent")
        }
        let value = withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { buffer -> F in
            var index = 0
            for byte in bytes {
                buffer[index] = CChar(bitPattern: byte)
                index += 1
            }
            buffer[index] = 0
            return parse(buffer.baseAddress.unsafelyUnwrapped)
        }
        guard value.isFinite else { throw undecided("a number that does not fit \(F.self)") }
        // A number that rounds to 0 but is not 0 (JSONDecoder refuses it).
        if value == 0,
            bytes.prefix(while: { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }).contains(where: {
                $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9")
            })
        {
            throw undecided("a number too small for \(F.self)")
        }
        return value
    }
}

extension SpanValueDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try decodeBool() }
    func decode(_ type: String.Type) throws -> String { try decodeString() }
    func decode(_ type: Double.Type) throws -> Double { try decodeFloatingPoint(Double.self) { strtod($0, nil) } }
    func decode(_ type: Float.Type) throws -> Float { try decodeFloatingPoint(Float.self) { strtof($0, nil) } }
    func decode(_ type: Int.Type) throws -> Int { try decodeInteger(Int.self) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decodeInteger(Int8.self) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decodeInteger(Int16.self) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decodeInteger(Int32.self) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decodeInteger(Int64.self) }
    func decode(_ type: UInt.Type) throws -> UInt { try decodeInteger(UInt.self) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeInteger(UInt8.self) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeInteger(UInt16.self) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeInteger(UInt32.self) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeInteger(UInt64.self) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(T.self) }
}

/// An object member's key and value.
private struct SpanMember {
    let key: Range<Int>
    let value: Range<Int>
}

/// An object's members, looked up by comparing each key's bytes with the coding key's text.
private struct SpanKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: SpanValueDecoder
    /// The object's coding path, made once for all its members.
    let path: [any CodingKey]
    let members: [SpanMember]

    var codingPath: [any CodingKey] { path }

    var allKeys: [Key] {
        members.compactMap { Key(stringValue: String(decoding: decoder.spans.bytes[$0.key], as: UTF8.self)) }
    }

    private func span(_ key: Key) -> Range<Int>? {
        let name = key.stringValue
        let bytes = decoder.spans.bytes
        for member in members where bytes[member.key].elementsEqual(name.utf8) { return member.value }
        return nil
    }

    func contains(_ key: Key) -> Bool { span(key) != nil }

    private func value(_ key: Key) throws -> SpanValueDecoder {
        guard let span = span(key) else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: path, debugDescription: "No value for \(key.stringValue)"))
        }
        return decoder.child(span, key, in: path)
    }

    /// The member's decoder, `nil` when the object has no such member or it is `null` (one
    /// look-up, where the protocol's default asks `contains`, `decodeNil` and `decode` in turn).
    private func presentValue(_ key: Key) -> SpanValueDecoder? {
        guard let span = span(key), !decoder.spans.isNull(span) else { return nil }
        return decoder.child(span, key, in: path)
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key).isNull }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try value(key).decodeBool() }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try value(key).decodeString() }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try value(key).decode(Double.self) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try value(key).decode(Float.self) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try value(key).decodeInteger(Int.self) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try value(key).decodeInteger(Int8.self) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try value(key).decodeInteger(Int16.self) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try value(key).decodeInteger(Int32.self) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try value(key).decodeInteger(Int64.self) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try value(key).decodeInteger(UInt.self) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try value(key).decodeInteger(UInt8.self) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try value(key).decodeInteger(UInt16.self) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try value(key).decodeInteger(UInt32.self) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try value(key).decodeInteger(UInt64.self) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try value(key).decodeValue(T.self) }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try presentValue(key)?.decodeBool() }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try presentValue(key)?.decodeString() }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try presentValue(key)?.decode(Double.self) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try presentValue(key)?.decode(Float.self) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try presentValue(key)?.decodeInteger(Int.self) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try presentValue(key)?.decodeInteger(Int8.self) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try presentValue(key)?.decodeInteger(Int16.self) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try presentValue(key)?.decodeInteger(Int32.self) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try presentValue(key)?.decodeInteger(Int64.self) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try presentValue(key)?.decodeInteger(UInt.self) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try presentValue(key)?.decodeInteger(UInt8.self) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try presentValue(key)?.decodeInteger(UInt16.self) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try presentValue(key)?.decodeInteger(UInt32.self) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try presentValue(key)?.decodeInteger(UInt64.self) }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { try presentValue(key)?.decodeValue(T.self) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try value(key).container(keyedBy: NestedKey.self)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try value(key).unkeyedContainer() }

    func superDecoder() throws -> any Decoder {
        guard let span = members.first(where: { decoder.spans.bytes[$0.key].elementsEqual("super".utf8) })?.value else {
            throw decoder.undecided("superDecoder() without a `super` member")
        }
        return decoder.child(span, SuperKey(), in: path)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        guard let span = span(key) else { throw decoder.undecided("superDecoder(forKey:) without the member") }
        return decoder.child(span, key, in: path)
    }
}

/// An array's elements, read in order.
private struct SpanUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: SpanValueDecoder
    /// The array's coding path, made once for all its elements.
    let path: [any CodingKey]
    let elements: [Range<Int>]
    var currentIndex = 0

    init(decoder: SpanValueDecoder, path: [any CodingKey], elements: [Range<Int>]) {
        self.decoder = decoder
        self.path = path
        self.elements = elements
    }

    var codingPath: [any CodingKey] { path }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// Decodes the next element with `read`; the index moves on only when it succeeds (as in
    /// `JSONDecoder`, a type may try another type on the same element).
    private mutating func next<T>(_ read: (SpanValueDecoder) throws -> T) throws -> T {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                T.self,
                DecodingError.Context(
                    codingPath: path + [ElementKey(intValue: currentIndex)], debugDescription: "Unkeyed container is at end."))
        }
        let value = try read(decoder.child(elements[currentIndex], ElementKey(intValue: currentIndex), in: path))
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                Any?.self,
                DecodingError.Context(
                    codingPath: path + [ElementKey(intValue: currentIndex)], debugDescription: "Unkeyed container is at end."))
        }
        guard decoder.spans.isNull(elements[currentIndex]) else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next { try $0.decodeBool() } }
    mutating func decode(_ type: String.Type) throws -> String { try next { try $0.decodeString() } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next { try $0.decode(Double.self) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next { try $0.decode(Float.self) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try next { try $0.decodeInteger(Int.self) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next { try $0.decodeInteger(Int8.self) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next { try $0.decodeInteger(Int16.self) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next { try $0.decodeInteger(Int32.self) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next { try $0.decodeInteger(Int64.self) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next { try $0.decodeInteger(UInt.self) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next { try $0.decodeInteger(UInt8.self) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next { try $0.decodeInteger(UInt16.self) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next { try $0.decodeInteger(UInt32.self) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next { try $0.decodeInteger(UInt64.self) } }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next { try $0.decodeValue(T.self) } }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next { try $0.container(keyedBy: NestedKey.self) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next { try $0.unkeyedContainer() } }

    mutating func superDecoder() throws -> any Decoder { try next { $0 } }
}

/// An optional the span decoder reads directly: `nil` for `null`, else the wrapped value.
private protocol SpanOptional {
    static func decodeOptional(from decoder: SpanValueDecoder) throws -> Self
}

extension Optional: SpanOptional where Wrapped: Decodable {
    fileprivate static func decodeOptional(from decoder: SpanValueDecoder) throws -> Self {
        if decoder.isNull { return nil }
        switch Wrapped.self {
        case is String.Type: return try decoder.decodeString() as? Wrapped
        case is Int.Type: return try decoder.decodeInteger(Int.self) as? Wrapped
        case is Bool.Type: return try decoder.decodeBool() as? Wrapped
        case is Double.Type: return try decoder.decode(Double.self) as? Wrapped
        default: return try decoder.decodeValue(Wrapped.self)
        }
    }
}
