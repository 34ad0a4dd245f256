/// A value an analytics event or profile can carry: `String`, `Int`, `Double` or `Bool`.
public protocol AnalyticsPropertyValue: Sendable {
    /// The value as JSON.
    var jsonValue: JSONValue { get }
}

extension String: AnalyticsPropertyValue {
    /// A JSON string.
    public var jsonValue: JSONValue { .string(self) }
}

extension Int: AnalyticsPropertyValue {
    /// A JSON number.
    public var jsonValue: JSONValue { .number(Double(self)) }
}

extension Double: AnalyticsPropertyValue {
    /// A JSON number.
    public var jsonValue: JSONValue { .number(self) }
}

extension Bool: AnalyticsPropertyValue {
    /// A JSON Boolean.
    public var jsonValue: JSONValue { .boolean(self) }
}

/// Properties by name.
public typealias AnalyticsProperties = [String: any AnalyticsPropertyValue]
