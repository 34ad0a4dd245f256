/// Decides whether a listener sees a payload. Runs on the loop thread, before the listener.
public typealias HubFilter = @Sendable (HubPayload) -> Bool

/// Called with each payload that passes the listener's filter. Runs on the Hub's loop thread,
/// one call at a time, in dispatch order.
public typealias HubListener = @Sendable (HubPayload) -> Void

/// Ready-made filters.
public enum HubFilters {
    /// Passes a payload only if every filter does.
    public static func all(filters: HubFilter...) -> HubFilter {
        { payload in filters.allSatisfy { $0(payload) } }
    }

    /// Passes a payload if any filter does.
    public static func any(filters: HubFilter...) -> HubFilter {
        { payload in filters.contains { $0(payload) } }
    }

    /// Passes payloads with the given event name.
    public static func forEventName(_ eventName: String) -> HubFilter {
        { payload in payload.eventName == eventName }
    }
}
