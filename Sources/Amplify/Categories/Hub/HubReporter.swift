/// The one road a plugin's events take to the Hub: the Hub the plugin was given (the `hub:` of
/// its initializer, for tests and for applications with a Hub of their own), else the plugin of
/// `Amplify.Hub`, looked up at each dispatch so that a Hub replaced by `Amplify.reset()` or
/// `Amplify.add(plugin:)` is followed.
///
/// The look-up costs one uncontended lock and no allocation: `Amplify.Hub` keeps the plugin it
/// resolved (see ``HubCategory/plugin``) until a plugin is added or removed, and the common case
/// (the default plugin alone) is queued without a further call. Safe from any thread; listeners
/// run on the Amplify event loop thread.
///
/// ```swift
/// struct MyStoragePlugin: StorageCategoryPlugin {
///     let events: HubReporter
///     init(hub: (any HubCategoryBehavior)? = nil) { events = HubReporter(hub: hub) }
///     func report(_ name: String) { events.dispatch(to: .storage, payload: HubPayload(eventName: name)) }
/// }
/// ```
public struct HubReporter: Sendable {
    /// The Hub given at initialization, `nil` for `Amplify.Hub`.
    public let hub: (any HubCategoryBehavior)?
    /// `hub` when it is the default plugin, which can tell whether anybody listens.
    private let defaultHub: DefaultHubPlugin?
    /// A Hub looked up by the owner at each dispatch (for reporters made from a closure).
    private let resolve: (@Sendable () -> any HubCategoryBehavior)?

    /// A reporter to `hub`, or to `Amplify.Hub` when `hub` is `nil`.
    public init(hub: (any HubCategoryBehavior)? = nil) {
        self.hub = hub
        defaultHub = hub as? DefaultHubPlugin
        resolve = nil
    }

    /// A reporter to the Hub `resolve` returns at each dispatch (for owners that were given a
    /// closure rather than a Hub).
    package init(resolving resolve: @escaping @Sendable () -> any HubCategoryBehavior) {
        hub = nil
        defaultHub = nil
        self.resolve = resolve
    }

    /// Queues `payload` for `channel`'s listeners on the Hub this reporter reports to. Never
    /// waits; safe from any thread.
    public func dispatch(to channel: HubChannel, payload: HubPayload) {
        if let hub {
            hub.dispatch(to: channel, payload: payload)
        } else if let resolve {
            resolve().dispatch(to: channel, payload: payload)
        } else {
            Amplify.Hub.dispatch(to: channel, payload: payload)
        }
    }

    /// Whether an event dispatched on `channel` now would reach anything; a producer whose
    /// payload costs something to build asks first. Always `true` for a Hub that is not the
    /// default plugin (it may forward events elsewhere).
    public func wantsEvents(on channel: HubChannel) -> Bool {
        if let defaultHub { return defaultHub.wantsEvents(on: channel) }
        if hub != nil || resolve != nil { return true }
        return Amplify.Hub.wantsEvents(on: channel)
    }
}
