/// An event to record.
public protocol AnalyticsEvent: Sendable {
    /// The event's name.
    var name: String { get }
    /// Its properties.
    var properties: AnalyticsProperties? { get }
}

/// An event with a name and properties.
public struct BasicAnalyticsEvent: AnalyticsEvent {
    /// The event's name.
    public var name: String
    /// Its properties.
    public var properties: AnalyticsProperties?

    /// An event called `name`.
    public init(name: String, properties: AnalyticsProperties? = nil) {
        self.name = name
        self.properties = properties
    }
}
