import Foundation

/// Identifies a listener; pass it to `Amplify.Hub.removeListener(_:)`.
public struct UnsubscribeToken: Sendable, Hashable {
    /// The channel the listener is on.
    public let channel: HubChannel
    /// The listener's identity.
    public let id: UUID
    /// The Hub plugin's own record of the listener, so removing it needs no table keyed by
    /// `id` (the default plugin's memory per listener); `nil` in a token made with `init`.
    package let listener: (any AnyObject & Sendable)?

    /// A token for listener `id` on `channel`.
    public init(channel: HubChannel, id: UUID) {
        self.init(channel: channel, id: id, listener: nil)
    }

    /// A token carrying the plugin's record of the listener.
    package init(channel: HubChannel, id: UUID, listener: (any AnyObject & Sendable)?) {
        self.channel = channel
        self.id = id
        self.listener = listener
    }

    /// Tokens are equal when their channel and id are (the plugin's record is not compared).
    public static func == (lhs: UnsubscribeToken, rhs: UnsubscribeToken) -> Bool {
        lhs.channel == rhs.channel && lhs.id == rhs.id
    }

    /// Hashes the channel and the id.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(channel)
        hasher.combine(id)
    }
}
