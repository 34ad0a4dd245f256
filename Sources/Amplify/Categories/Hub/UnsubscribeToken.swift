import Foundation

/// Identifies a listener; pass it to `Amplify.Hub.removeListener(_:)`.
public struct UnsubscribeToken: Sendable, Hashable {
    /// The channel the listener is on.
    public let channel: HubChannel
    /// The listener's identity.
    public let id: UUID

    /// A token for listener `id` on `channel`.
    public init(channel: HubChannel, id: UUID) {
        self.channel = channel
        self.id = id
    }
}
