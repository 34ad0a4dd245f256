/// What the Hub does: dispatch payloads to channels, and call listeners with them.
///
/// The four requirements are amplify-swift's, with its signatures, so a Hub plugin written for
/// amplify-swift conforms unchanged. The rest (where a listener was registered, event streams,
/// flushing) are requirements with default implementations: a plugin may implement them to do
/// better, and need not.
public protocol HubCategoryBehavior: Sendable {
    /// Queues `payload` for delivery on `channel`. Never waits for listeners; safe from any
    /// thread or task; nothing dispatched is lost.
    func dispatch(to channel: HubChannel, payload: HubPayload)

    /// Registers `listener` for payloads named `eventName` on `channel`, dispatched after this
    /// call returns.
    /// - Returns: the token for ``removeListener(_:)``.
    func listen(to channel: HubChannel, eventName: HubPayloadEventName, listener: @escaping HubListener) -> UnsubscribeToken

    /// Registers `listener` for payloads on `channel` that pass `filter` (every payload when it is
    /// `nil`), dispatched after this call returns.
    /// - Returns: the token for ``removeListener(_:)``.
    func listen(to channel: HubChannel, isIncluded filter: HubFilter?, listener: @escaping HubListener) -> UnsubscribeToken

    /// Removes a listener: once this returns, no new call of it starts. Safe from any thread,
    /// including from inside the listener itself.
    func removeListener(_ token: UnsubscribeToken)

    /// ``listen(to:isIncluded:listener:)`` saying where the listener was registered (`file` and
    /// `line` name it in slow-listener reports). The default ignores them.
    func listen(
        to channel: HubChannel, isIncluded filter: HubFilter?, file: String, line: Int,
        listener: @escaping HubListener
    ) -> UnsubscribeToken

    /// ``listen(to:eventName:listener:)`` saying where the listener was registered. The default
    /// ignores `file` and `line`.
    func listen(
        to channel: HubChannel, eventName: HubPayloadEventName, file: String, line: Int,
        listener: @escaping HubListener
    ) -> UnsubscribeToken

    /// An asynchronous sequence of the payloads on `channel` that pass `filter`, dispatched after
    /// this call returns: exactly what a listener registered at the same moment would receive.
    /// The default feeds an `AsyncStream` from such a listener and removes it when iteration ends.
    func events(on channel: HubChannel, isIncluded filter: HubFilter?, bufferingPolicy: HubEventStream.BufferingPolicy) -> HubEventStream

    /// Returns once every payload dispatched before the call has been delivered to every
    /// listener (and stream) it was for. The default returns at once: a plugin that delivers
    /// asynchronously should implement it.
    func flush() async
}

/// The defaults for the requirements amplify-swift's protocol does not have.
extension HubCategoryBehavior {
    /// Registers through ``listen(to:isIncluded:listener:)``; `file` and `line` are not kept.
    public func listen(
        to channel: HubChannel, isIncluded filter: HubFilter?, file: String, line: Int,
        listener: @escaping HubListener
    ) -> UnsubscribeToken {
        listen(to: channel, isIncluded: filter, listener: listener)
    }

    /// Registers through ``listen(to:eventName:listener:)``; `file` and `line` are not kept.
    public func listen(
        to channel: HubChannel, eventName: HubPayloadEventName, file: String, line: Int,
        listener: @escaping HubListener
    ) -> UnsubscribeToken {
        listen(to: channel, eventName: eventName, listener: listener)
    }

    /// A stream fed by a listener registered with ``listen(to:isIncluded:listener:)``; the
    /// listener is removed when the stream's iteration ends.
    public func events(
        on channel: HubChannel, isIncluded filter: HubFilter?, bufferingPolicy: HubEventStream.BufferingPolicy
    ) -> HubEventStream {
        let (stream, continuation) = AsyncStream<HubPayload>.makeStream(bufferingPolicy: bufferingPolicy.streamPolicy)
        let drops = DropCounter()
        let token = listen(to: channel, isIncluded: filter) { payload in
            if case .dropped = continuation.yield(payload) { _ = drops.record() }
        }
        continuation.onTermination = { _ in self.removeListener(token) }
        return HubEventStream(stream: stream, drops: drops)
    }

    /// Returns at once.
    public func flush() async {}
}

/// The name of a Hub event (amplify-swift's name for it).
public typealias HubPayloadEventName = String

/// Something that names a Hub event.
public protocol HubPayloadEventNameable {
    /// The event's name.
    var eventName: HubPayloadEventName { get }
}
