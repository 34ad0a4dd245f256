/// A Hub plugin: the engine behind `Amplify.Hub`.
public protocol HubCategoryPlugin: Plugin, HubCategoryBehavior {}

extension HubCategoryPlugin {
    /// Always `.hub`.
    public var categoryType: CategoryType { .hub }
}

/// A Hub plugin that delivers through another Hub plugin and adds to it (a bridge to other
/// processes). `Amplify.add(plugin:)` lets it replace the plugin it wraps even when that plugin
/// already has listeners, since they keep hearing everything through the wrapper.
public protocol HubPluginWrapper: HubCategoryPlugin {
    /// The plugin this one delivers through.
    var wrappedPlugin: any HubCategoryPlugin { get }
}

/// A wrapper's listeners are the wrapped plugin's: every way to listen, stop listening, stream
/// and flush goes to ``HubPluginWrapper/wrappedPlugin`` (a wrapper adds to dispatch, not to
/// delivery).
extension HubPluginWrapper {
    /// Registers on the wrapped plugin.
    @discardableResult
    public func listen(to channel: HubChannel, eventName: HubPayloadEventName, listener: @escaping HubListener) -> UnsubscribeToken {
        wrappedPlugin.listen(to: channel, eventName: eventName, listener: listener)
    }

    /// Registers on the wrapped plugin.
    @discardableResult
    public func listen(to channel: HubChannel, isIncluded filter: HubFilter?, listener: @escaping HubListener) -> UnsubscribeToken {
        wrappedPlugin.listen(to: channel, isIncluded: filter, listener: listener)
    }

    /// Registers on the wrapped plugin, saying where.
    @discardableResult
    public func listen(
        to channel: HubChannel, isIncluded filter: HubFilter?, file: String, line: Int, listener: @escaping HubListener
    ) -> UnsubscribeToken {
        wrappedPlugin.listen(to: channel, isIncluded: filter, file: file, line: line, listener: listener)
    }

    /// Registers on the wrapped plugin, saying where.
    @discardableResult
    public func listen(
        to channel: HubChannel, eventName: HubPayloadEventName, file: String, line: Int, listener: @escaping HubListener
    ) -> UnsubscribeToken {
        wrappedPlugin.listen(to: channel, eventName: eventName, file: file, line: line, listener: listener)
    }

    /// Removes the listener from the wrapped plugin.
    public func removeListener(_ token: UnsubscribeToken) {
        wrappedPlugin.removeListener(token)
    }

    /// The wrapped plugin's stream.
    public func events(on channel: HubChannel, isIncluded filter: HubFilter?, bufferingPolicy: HubEventStream.BufferingPolicy) -> HubEventStream {
        wrappedPlugin.events(on: channel, isIncluded: filter, bufferingPolicy: bufferingPolicy)
    }

    /// Waits for the wrapped plugin's deliveries.
    public func flush() async {
        await wrappedPlugin.flush()
    }
}
