import Amplify
import Foundation

/// One recorded analytics event as it is stored and sent: the event's name and properties
/// (strings and Booleans as attributes, numbers as metrics) merged over the global properties,
/// the identified user, and when it was recorded.
public struct AnalyticsRecord: Codable, Sendable, Equatable {
    /// The event's name.
    public var name: String
    /// When it was recorded, seconds since 1970.
    public var timestamp: Double
    /// String and Boolean properties.
    public var attributes: [String: String]
    /// Numeric properties.
    public var metrics: [String: Double]
    /// The user named by the last `identifyUser`, if any.
    public var userId: String?

    /// A record.
    public init(
        name: String, timestamp: Double = Date().timeIntervalSince1970, attributes: [String: String] = [:], metrics: [String: Double] = [:],
        userId: String? = nil
    ) {
        self.name = name
        self.timestamp = timestamp
        self.attributes = attributes
        self.metrics = metrics
        self.userId = userId
    }

    /// `event`'s name and properties over `globalProperties`, for `userId`.
    public init(
        event: any AnalyticsEvent, globalProperties: AnalyticsProperties, userId: String?, at timestamp: Double = Date().timeIntervalSince1970
    ) {
        self.init(name: event.name, timestamp: timestamp, userId: userId)
        // The event's own properties win over global ones; walked in place rather than merged
        // into a new dictionary first (recording is a hot path).
        let own = event.properties ?? [:]
        let count = own.count + globalProperties.count
        attributes.reserveCapacity(count)
        metrics.reserveCapacity(count)
        for (key, value) in globalProperties where own[key] == nil { add(key, value) }
        for (key, value) in own { add(key, value) }
    }

    private mutating func add(_ key: String, _ value: any AnalyticsPropertyValue) {
        switch value.jsonValue {
        case .number(let number): metrics[key] = number
        case .boolean(let flag): attributes[key] = flag ? "true" : "false"
        case .string(let text): attributes[key] = text
        case let other: attributes[key] = other.compactDescription
        }
    }
}

extension JSONValue {
    /// The value as compact JSON text.
    var compactDescription: String {
        (try? JSONEncoder().encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}

/// A record as the queue holds it: its row id (the order it was recorded in) and how many times
/// a service refused it.
public struct QueuedRecord: Sendable, Equatable {
    /// The queue's id for it; ids grow in recording order.
    public let id: Int64
    /// The record.
    public let record: AnalyticsRecord
    /// How many times a service refused it.
    public let attempts: Int
}

/// What a sender says about one record of a batch.
public enum RecordOutcome: Sendable, Equatable {
    /// Delivered: the queue deletes it.
    case accepted
    /// The service refused this record (`reason`): it is tried again at a later flush, and set
    /// aside after the queue's `maxAttempts`.
    case rejected(String)
    /// Not delivered because the service could not be reached: tried again later, without
    /// counting an attempt.
    case notSent(String)
}

extension QueuedRecord {
    private struct Line: Encodable {
        let id: Int64
        let name: String
        let timestamp: Double
        let attributes: [String: String]
        let metrics: [String: Double]
        let userId: String?
    }

    /// The record as the plugins deliver it: one line of JSON with sorted keys and a final
    /// newline, `{"attributes":{…},"id":17,"metrics":{…},"name":"orderPlaced","timestamp":…,"userId":"u-42"}`.
    public func jsonLine() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let line = Line(
            id: id, name: record.name, timestamp: record.timestamp, attributes: record.attributes, metrics: record.metrics, userId: record.userId)
        return Array((try? encoder.encode(line)) ?? Data("{}".utf8)) + [UInt8(ascii: "\n")]
    }
}
