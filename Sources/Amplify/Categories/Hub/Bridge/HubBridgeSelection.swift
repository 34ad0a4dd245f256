/// Which Hub events a bridge carries between processes: the channels, and the event names on
/// them (`nil`: every event of the channels). Read from a bridge block's `channels` and
/// `eventNames` (`["*"]`: every event); by default the Auth lifecycle events.
public struct HubBridgeSelection: Sendable, Equatable {
    /// The Auth lifecycle events carried when a block names none.
    public static let defaultEventNames = [
        HubPayload.EventName.Auth.signedIn, HubPayload.EventName.Auth.signedOut,
        HubPayload.EventName.Auth.sessionExpired, HubPayload.EventName.Auth.userDeleted,
    ]

    /// The channels whose events are carried.
    public var channels: [HubChannel]
    /// The event names carried (`nil`: every event of the channels).
    public var eventNames: Set<String>?

    /// A selection (by default the `auth` channel's lifecycle events).
    /// - Parameters:
    ///   - channels: the channels whose events are carried.
    ///   - eventNames: the event names carried (`nil`: every event of the channels).
    public init(channels: [HubChannel] = [.auth], eventNames: Set<String>? = Set(Self.defaultEventNames)) {
        self.channels = channels
        self.eventNames = eventNames
    }

    /// Reads `channels` and `eventNames` of a bridge block, keeping the defaults for absent keys.
    /// - Throws: `ConfigurationValueError` naming `channels` or `eventNames` when one is not a
    ///   non-empty array of strings.
    public init(json: JSONValue) throws(ConfigurationValueError) {
        self.init()
        if let channels = json["channels"], !channels.isNull {
            guard let names = channels.asArray?.compactMap(\.stringValue), names.count == channels.asArray?.count, !names.isEmpty else {
                throw ConfigurationValueError(keyPath: "channels", expected: "a non-empty array of channel names", found: channels)
            }
            self.channels = names.map { HubChannel(name: $0) }
        }
        if let events = json["eventNames"], !events.isNull {
            guard let names = events.asArray?.compactMap(\.stringValue), names.count == events.asArray?.count, !names.isEmpty else {
                throw ConfigurationValueError(keyPath: "eventNames", expected: "a non-empty array of event names, or [\"*\"]", found: events)
            }
            eventNames = names == ["*"] ? nil : Set(names)
        }
    }

    /// Whether an event on `channel` named `eventName` is carried.
    public func carries(_ channel: HubChannel, _ eventName: String) -> Bool {
        channels.contains(channel) && (eventNames?.contains(eventName) ?? true)
    }
}
