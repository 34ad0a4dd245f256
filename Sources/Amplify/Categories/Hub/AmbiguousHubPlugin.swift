import Foundation

/// What `Amplify.Hub.plugin` is while the category holds more than one plugin: every call logs
/// the ``HubError`` (amplify-swift stops the process there) and does nothing.
final class AmbiguousHubPlugin: HubCategoryPlugin {
    let keys: [PluginKey]

    init(keys: [PluginKey]) {
        self.keys = keys
    }

    var key: PluginKey { keys.joined(separator: "+") }

    /// The error each call reports.
    var error: HubError {
        HubError.configuration(
            "More than 1 plugin added to the Hub category (\(keys.joined(separator: ", "))); a call on Amplify.Hub cannot tell which one to use, so it did nothing.",
            "Call it on one plugin, as in Amplify.Hub.getPlugin(for: \"\(keys.first ?? "")\").dispatch(to:payload:), or add only one Hub plugin.")
    }

    private func fail(_ call: String) {
        Amplify.Logging.logger(forCategory: "Hub").error("Amplify.Hub.\(call): \(error.errorDescription) \(error.recoverySuggestion)")
    }

    func configure(using configuration: Any?) throws {}

    func reset() async {}

    func dispatch(to channel: HubChannel, payload: HubPayload) {
        fail("dispatch(to:payload:)")
    }

    func listen(to channel: HubChannel, eventName: HubPayloadEventName, listener: @escaping HubListener) -> UnsubscribeToken {
        fail("listen(to:eventName:listener:)")
        return UnsubscribeToken(channel: channel, id: UUID())
    }

    func listen(to channel: HubChannel, isIncluded filter: HubFilter?, listener: @escaping HubListener) -> UnsubscribeToken {
        fail("listen(to:isIncluded:listener:)")
        return UnsubscribeToken(channel: channel, id: UUID())
    }

    func removeListener(_ token: UnsubscribeToken) {
        fail("removeListener(_:)")
    }

    func events(on channel: HubChannel, isIncluded filter: HubFilter?, bufferingPolicy: HubEventStream.BufferingPolicy) -> HubEventStream {
        fail("events(on:)")
        let (stream, continuation) = AsyncStream<HubPayload>.makeStream()
        continuation.finish()
        return HubEventStream(stream: stream, drops: DropCounter())
    }

    func flush() async {
        fail("flush()")
    }
}
