import AmplifyConcurrency

/// `Amplify.Hub`: publish and subscribe between categories and application code.
///
/// The Hub works before `Amplify.configure()` and without any configuration: its
/// ``DefaultHubPlugin`` starts on first use. Listeners run on the Amplify event loop thread, one
/// call at a time, each receiving in dispatch order every event of its channel that passes its
/// filter and was dispatched after `listen` returned.
public final class HubCategory: Sendable {
    /// The plugin, and the same object typed when it is the default one (the dispatch fast path
    /// uses it without a cast).
    private struct Slot {
        var plugin: (any HubCategoryPlugin)? {
            didSet { defaultPlugin = plugin as? DefaultHubPlugin }
        }
        private(set) var defaultPlugin: DefaultHubPlugin?
    }

    private let slot = Locked(Slot())

    init() {}

    /// `.hub`.
    public let categoryType: CategoryType = .hub

    /// The plugin in use, starting the default one if there is none.
    public var plugin: any HubCategoryPlugin {
        // A default plugin whose loop shut down (a reset raced a first use) is replaced.
        func usable(_ plugin: (any HubCategoryPlugin)?) -> (any HubCategoryPlugin)? {
            guard let plugin, !((plugin as? DefaultHubPlugin)?.isClosed ?? false) else { return nil }
            return plugin
        }
        if let current = usable(slot.withLock({ $0.plugin })) { return current }
        // Made outside the lock: starting it waits for the loop thread, which may itself be
        // inside a listener that needs this lock.
        let made = DefaultHubPlugin()
        let (winner, lost) = slot.withLock { slot -> (any HubCategoryPlugin, Bool) in
            if let current = usable(slot.plugin) { return (current, true) }
            slot.plugin = made
            return (made, false)
        }
        if lost { Task { await made.reset() } }
        return winner
    }

    /// The plugin with `key`.
    /// - Throws: ``PluginError/noSuchPlugin(_:_:_:)`` if the Hub's plugin has another key.
    public func getPlugin(for key: PluginKey) throws -> any HubCategoryPlugin {
        let current = plugin
        guard current.key == key else { throw singlePluginMismatch(key, current: current.key, category: .hub) }
        return current
    }

    /// Replaces the Hub's plugin. Allowed before `configure` while the current plugin has no
    /// listeners (they would never hear from the new one), or at any time by a
    /// ``HubPluginWrapper`` that wraps the current plugin.
    /// - Throws: ``PluginError/pluginConfigurationError(_:_:_:)`` if listeners are registered.
    func add(plugin newPlugin: any HubCategoryPlugin) throws {
        let replaced = try slot.withLock { slot -> (any HubCategoryPlugin)? in
            let current = slot.plugin
            if let current, current.key == newPlugin.key, current === newPlugin { return nil }
            // A wrapper around the current plugin keeps its listeners: nothing to refuse or reset.
            if let existing = current, let wrapper = newPlugin as? any HubPluginWrapper, wrapper.wrappedPlugin === existing {
                slot.plugin = newPlugin
                return nil
            }
            if let existing = current as? DefaultHubPlugin, existing.listenerCount > 0 {
                throw PluginError.pluginConfigurationError(
                    "The Hub plugin '\(newPlugin.key)' was added after listeners were registered on the default Hub.",
                    "Add your Hub plugin with Amplify.add(plugin:) before anything calls Amplify.Hub.listen.")
            }
            slot.plugin = newPlugin
            return current
        }
        if let replaced { Task { await replaced.reset() } }
    }

    /// Takes the plugin out (reset starts afresh on next use).
    func takePlugin() -> (any HubCategoryPlugin)? {
        slot.withLock { slot in
            defer { slot.plugin = nil }
            return slot.plugin
        }
    }

    /// The plugin if one was started, without starting one.
    var existingPlugin: (any HubCategoryPlugin)? { slot.withLock { $0.plugin } }

    /// Queues `payload` for `channel`'s listeners. Never waits; safe from any thread; nothing
    /// dispatched is lost.
    public func dispatch(to channel: HubChannel, payload: HubPayload) {
        // The common case in two steps: the default plugin, then its queue. Whether it is still
        // open is known only by its queue; a closed one is replaced by `plugin` below.
        if let hub = slot.withLock({ $0.defaultPlugin }) {
            if hub.enqueueEvent(channel, payload) { return }
        } else if let other = existingPlugin {
            other.dispatch(to: channel, payload: payload)
            return
        }
        plugin.dispatch(to: channel, payload: payload)
    }

    /// Queues `payload` for `channel`'s listeners, first suspending while the default Hub's queue
    /// is full (see ``DefaultHubPlugin/queueLimit``): the dispatch for producers that can be
    /// slowed down. Another Hub plugin gets a plain ``dispatch(to:payload:)``.
    public func dispatchWaitingForRoom(to channel: HubChannel, payload: HubPayload) async {
        if let hub = slot.withLock({ $0.defaultPlugin }), !hub.isClosed {
            await hub.dispatchWaitingForRoom(to: channel, payload: payload)
        } else {
            dispatch(to: channel, payload: payload)
        }
    }

    /// Calls `listener` (on the loop thread) with each payload on `channel` that passes `filter`
    /// (all payloads when `nil`), dispatched after this returns.
    /// - Returns: a token for ``removeListener(_:)``.
    @discardableResult
    public func listen(
        to channel: HubChannel, isIncluded filter: HubFilter? = nil,
        file: String = #fileID, line: Int = #line,
        listener: @escaping HubListener
    ) -> UnsubscribeToken {
        plugin.listen(to: channel, isIncluded: filter, file: file, line: line, listener: listener)
    }

    /// Calls `listener` (on the loop thread) with each payload named `eventName` on `channel`.
    /// - Returns: a token for ``removeListener(_:)``.
    @discardableResult
    public func listen(
        to channel: HubChannel, eventName: String,
        file: String = #fileID, line: Int = #line,
        listener: @escaping HubListener
    ) -> UnsubscribeToken {
        plugin.listen(to: channel, eventName: eventName, file: file, line: line, listener: listener)
    }

    /// Removes a listener; once this returns no new call of it starts. Safe from any thread,
    /// including inside the listener.
    public func removeListener(_ token: UnsubscribeToken) {
        plugin.removeListener(token)
    }

    /// The payloads on `channel` (those that pass `filter`) as an `AsyncSequence`: the
    /// counterpart of amplify-swift's Combine `publisher(for:)`. See ``HubEventStream`` for the
    /// buffering policy.
    public func events(
        on channel: HubChannel, isIncluded filter: HubFilter? = nil,
        bufferingPolicy: HubEventStream.BufferingPolicy = .unbounded
    ) -> HubEventStream {
        plugin.events(on: channel, isIncluded: filter, bufferingPolicy: bufferingPolicy)
    }

    /// The payloads named `eventName` on `channel`, as an `AsyncSequence`.
    public func events(
        on channel: HubChannel, eventName: String,
        bufferingPolicy: HubEventStream.BufferingPolicy = .unbounded
    ) -> HubEventStream {
        plugin.events(on: channel, isIncluded: HubFilters.forEventName(eventName), bufferingPolicy: bufferingPolicy)
    }

    /// Returns once everything dispatched before the call has reached its listeners. Called on
    /// the loop thread (inside a listener) it returns at once, since the loop cannot wait for
    /// itself.
    public func flush() async {
        await plugin.flush()
    }
}
