import AmplifyConcurrency
import Foundation

/// `Amplify.Hub`: publish and subscribe between categories and application code.
///
/// The Hub works before `Amplify.configure()` and without any configuration: its
/// ``DefaultHubPlugin`` starts on first use. Listeners run on the Amplify event loop thread, one
/// call at a time, each receiving in dispatch order every event of its channel that passes its
/// filter and was dispatched after `listen` returned.
///
/// As in amplify-swift the category may hold several plugins: the first `Amplify.add(plugin:)`
/// of a Hub plugin takes the default plugin's place, later ones (with other keys) are added beside
/// it. With more than one plugin, reach each with ``getPlugin(for:)``; a call on the category
/// itself cannot tell which plugin to use, and fails: amplify-swift stops the process there, this
/// package logs a ``HubError/configuration(_:_:_:)`` at the `error` level (category "Hub") and does
/// nothing (`listen` returns a token no listener has, `events` an empty stream).
public final class HubCategory: Sendable {
    /// The plugins, and the default one typed when it is the only one (the dispatch fast path
    /// uses it without a cast).
    private struct Slot {
        var plugins: [PluginKey: any HubCategoryPlugin] = [:] {
            didSet {
                defaultPlugin = plugins.count == 1 ? plugins.first?.value as? DefaultHubPlugin : nil
                resolved =
                    switch plugins.count {
                    case 0: nil
                    case 1: plugins.first?.value
                    default: AmbiguousHubPlugin(keys: plugins.keys.sorted())
                    }
            }
        }
        /// Whether a plugin was added with `add(plugin:)` (the started-on-first-use default is not).
        var added = false
        private(set) var defaultPlugin: DefaultHubPlugin?
        /// What `plugin` returns, resolved when the plugins change rather than at each call: the
        /// only plugin, the ambiguous stand-in for several (its keys sorted once), `nil` for none.
        private(set) var resolved: (any HubCategoryPlugin)?
    }

    private let slot = Locked(Slot())

    init() {}

    /// `.hub`.
    public let categoryType: CategoryType = .hub

    /// amplify-swift's key for its default Hub plugin; ``DefaultHubPlugin`` answers to it too.
    public static let awsHubPluginKey: PluginKey = "awsHubPlugin"

    /// The plugin calls on the category go to, starting the default one if there is none. With
    /// more than one plugin it is a stand-in whose every call logs the ``HubError`` and does
    /// nothing (see the type's discussion).
    public var plugin: any HubCategoryPlugin {
        // The fast path: one lock, the plugin resolved when the plugins last changed. A default
        // plugin whose loop shut down (a reset raced a first use) is replaced below.
        let current = slot.withLock { $0.resolved }
        if let current, !((current as? DefaultHubPlugin)?.isClosed ?? false) { return current }
        func usable(_ slot: Slot) -> (any HubCategoryPlugin)? {
            guard let resolved = slot.resolved, !((resolved as? DefaultHubPlugin)?.isClosed ?? false) else { return nil }
            return resolved
        }
        // Made outside the lock: starting it waits for the loop thread, which may itself be
        // inside a listener that needs this lock.
        let made = DefaultHubPlugin()
        let (winner, lost) = slot.withLock { slot -> (any HubCategoryPlugin, Bool) in
            if let current = usable(slot) { return (current, true) }
            slot.plugins = [made.key: made]
            return (made, false)
        }
        if lost { Task { await made.reset() } }
        return winner
    }

    /// The plugin with `key`. The default plugin (whose `key` is amplify-swift's `"awsHubPlugin"`)
    /// answers to `"defaultHubPlugin"` too, and starts if it has not.
    /// - Throws: ``HubError/configuration(_:_:_:)`` naming the keys there are, if no plugin has `key`.
    public func getPlugin(for key: PluginKey) throws -> any HubCategoryPlugin {
        let (found, keys, added) = slot.withLock { slot in (slot.plugins[key], slot.plugins.keys.sorted(), slot.added) }
        if let found { return found }
        let defaultKeys: Set<PluginKey> = [DefaultHubPlugin.pluginKey, Self.awsHubPluginKey]
        if defaultKeys.contains(key) {
            if !added, let current = plugin as? DefaultHubPlugin { return current }
            if let typed = slot.withLock({ $0.plugins.values.first { $0 is DefaultHubPlugin } }) { return typed }
        }
        let known = keys.isEmpty && !added ? [DefaultHubPlugin.pluginKey] : keys
        throw HubError.configuration(
            "No plugin has been added for '\(key)'.",
            "Either add a plugin for '\(key)', or use one of the known keys: \(known.joined(separator: ", ")).")
    }

    /// Adds a Hub plugin. The first one takes the place of the default plugin (allowed while the
    /// default has no listeners, since they would never hear from the new one); later ones with
    /// other keys are added beside it, one with the same key replaces the plugin with that key.
    /// A ``HubPluginWrapper`` takes the place of the plugin it wraps at any time, keeping its
    /// listeners. Safe from any thread; a replaced plugin is reset in a task of its own.
    /// - Throws: ``HubError/configuration(_:_:_:)`` for an empty key or when the default plugin has
    ///   listeners.
    public func add(plugin newPlugin: any HubCategoryPlugin) throws {
        guard !newPlugin.key.isEmpty else {
            throw HubError.configuration(
                "Plugin \(type(of: newPlugin)) has an empty `key`.",
                "Set the `key` property of \(type(of: newPlugin)): it names the plugin's block in the configuration file.")
        }
        let replaced = try slot.withLock { slot -> [any HubCategoryPlugin] in
            // A wrapper around a plugin of the category keeps its listeners: nothing to refuse.
            if let wrapper = newPlugin as? any HubPluginWrapper,
                let (wrappedKey, _) = slot.plugins.first(where: { $0.value === wrapper.wrappedPlugin })
            {
                slot.plugins.removeValue(forKey: wrappedKey)
                let displaced = slot.plugins.removeValue(forKey: newPlugin.key)
                slot.plugins[newPlugin.key] = newPlugin
                slot.added = true
                return displaced.map { [$0] } ?? []
            }
            if !slot.added {
                if let existing = slot.plugins.values.first, existing === newPlugin {
                    slot.added = true
                    return []
                }
                if let existing = slot.defaultPlugin, existing.listenerCount > 0 {
                    throw HubError.configuration(
                        "The Hub plugin '\(newPlugin.key)' was added after listeners were registered on the default Hub.",
                        "Add your Hub plugin with Amplify.add(plugin:) before anything calls Amplify.Hub.listen.")
                }
                let previous = Array(slot.plugins.values)
                slot.plugins = [newPlugin.key: newPlugin]
                slot.added = true
                return previous
            }
            let displaced = slot.plugins[newPlugin.key]
            if let displaced, displaced === newPlugin { return [] }
            slot.plugins[newPlugin.key] = newPlugin
            return displaced.map { [$0] } ?? []
        }
        for old in replaced { Task { await old.reset() } }
    }

    /// Removes the plugin with `key` (no action if there is none) and resets it in a task of its
    /// own. With no plugin left, the next use of the Hub starts the default one.
    public func removePlugin(for key: PluginKey) {
        let removed = slot.withLock { slot -> (any HubCategoryPlugin)? in
            let removed = slot.plugins.removeValue(forKey: key)
            if slot.plugins.isEmpty { slot.added = false }
            return removed
        }
        if let removed { Task { await removed.reset() } }
    }

    /// Resets every plugin and removes them (ending every listener and stream); the next use of
    /// the Hub starts a new default plugin. `Amplify.reset()` calls it after delivering what was
    /// already dispatched.
    public func reset() async {
        for plugin in takeAll() { await plugin.reset() }
    }

    /// Takes every plugin out (the next use starts afresh).
    func takeAll() -> [any HubCategoryPlugin] {
        slot.withLock { slot in
            defer {
                slot.plugins = [:]
                slot.added = false
            }
            return slot.plugins.sorted { $0.key < $1.key }.map(\.value)
        }
    }

    /// The plugins there are, without starting one, ordered by key.
    var existingPlugins: [any HubCategoryPlugin] {
        slot.withLock { $0.plugins.sorted { $0.key < $1.key }.map(\.value) }
    }

    /// The keys each plugin answers to in a configuration file.
    func configurationKeys(of plugin: any Plugin) -> [PluginKey] {
        plugin is DefaultHubPlugin ? [DefaultHubPlugin.pluginKey, Self.awsHubPluginKey] : [plugin.key]
    }

    /// Queues `payload` for `channel`'s listeners. Never waits; safe from any thread; nothing
    /// dispatched is lost.
    public func dispatch(to channel: HubChannel, payload: HubPayload) {
        // The common case in two steps: the default plugin, then its queue. Whether it is still
        // open is known only by its queue; a closed one is replaced by `plugin` below.
        let (hub, only) = slot.withLock { slot in (slot.defaultPlugin, slot.plugins.count == 1 ? slot.plugins.first?.value : nil) }
        if let hub {
            if hub.enqueueEvent(channel, payload) { return }
        } else if let only {
            only.dispatch(to: channel, payload: payload)
            return
        }
        plugin.dispatch(to: channel, payload: payload)
    }

    /// Whether an event dispatched on `channel` now would reach anything (see
    /// ``DefaultHubPlugin/wantsEvents(on:)``); always `true` with another Hub plugin, which may
    /// forward events elsewhere.
    package func wantsEvents(on channel: HubChannel) -> Bool {
        guard let hub = slot.withLock({ $0.defaultPlugin }) else { return true }
        return hub.wantsEvents(on: channel)
    }

    /// Queues `payload` on every plugin of the category (as amplify-swift announces
    /// `Amplify.configured`).
    func dispatchToEveryPlugin(_ channel: HubChannel, payload: HubPayload) {
        let plugins = existingPlugins
        guard plugins.count > 1 else { return dispatch(to: channel, payload: payload) }
        for plugin in plugins { plugin.dispatch(to: channel, payload: payload) }
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
