/// What the Hub does: dispatch payloads to channels, and call listeners with them.
public protocol HubCategoryBehavior: Sendable {
    /// Queues `payload` for delivery on `channel`. Never waits for listeners; safe from any
    /// thread or task; nothing dispatched is lost.
    func dispatch(to channel: HubChannel, payload: HubPayload)

    /// Registers `listener` for payloads on `channel` that pass `filter`, dispatched after this
    /// call returns. `file` and `line` say where it was registered (slow-listener reports).
    /// - Returns: the token for ``removeListener(_:)``.
    func listen(
        to channel: HubChannel, isIncluded filter: HubFilter?, file: String, line: Int,
        listener: @escaping HubListener
    ) -> UnsubscribeToken

    /// Registers `listener` for payloads named `eventName` on `channel`.
    func listen(
        to channel: HubChannel, eventName: String, file: String, line: Int,
        listener: @escaping HubListener
    ) -> UnsubscribeToken

    /// Removes a listener: once this returns, no new call of it starts. Safe from any thread,
    /// including from inside the listener itself.
    func removeListener(_ token: UnsubscribeToken)

    /// An asynchronous sequence of the payloads on `channel` that pass `filter`, dispatched after
    /// this call returns: exactly what a listener registered at the same moment would receive.
    func events(on channel: HubChannel, isIncluded filter: HubFilter?, bufferingPolicy: HubEventStream.BufferingPolicy) -> HubEventStream

    /// Returns once every payload dispatched before the call has been delivered to every
    /// listener (and stream) it was for.
    func flush() async
}
