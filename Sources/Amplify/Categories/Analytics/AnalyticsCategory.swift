/// `Amplify.Analytics`: record events through every Analytics plugin added or named in the
/// configuration file.
///
/// Calls never throw. Used before `configure`, or with no plugin, a call does nothing but log an
/// ``AnalyticsError/configuration(_:_:_:)`` (category "Analytics", level error) and dispatch it
/// on the Hub's `.analytics` channel under the call's event name.
public final class AnalyticsCategory: AnalyticsCategoryBehavior {
    let plugins = CategoryPlugins<any AnalyticsCategoryPlugin>(category: .analytics) { AnalyticsError.configuration($0, $1) }

    init() {}

    /// `.analytics`.
    public let categoryType: CategoryType = .analytics

    /// The plugin with `key`.
    /// - Throws: ``AnalyticsError/configuration(_:_:_:)`` listing the keys there are (amplify-swift's error).
    public func getPlugin(for key: PluginKey) throws -> any AnalyticsCategoryPlugin {
        try plugins.require(key)
    }

    /// Removes the plugin with `key` (before `configure`).
    public func removePlugin(for key: PluginKey) { plugins.remove(key: key) }

    /// Resets every Analytics plugin, removes them and marks the category unconfigured (what
    /// `Amplify.reset()` does for Analytics).
    public func reset() async {
        for plugin in plugins.takeAll() { await plugin.reset() }
    }

    /// Calls `body` on every plugin (analytics fans out), or reports why it cannot.
    private func each(_ eventName: String, _ body: (any AnalyticsCategoryPlugin) -> Void) {
        let selection = plugins.selectOne()
        switch selection {
        case .plugin(let plugin):
            body(plugin)
        case .ambiguous:
            for plugin in plugins.all.values { body(plugin) }
        case .notConfigured, .noPlugin:
            let (description, suggestion) = plugins.explain(selection)
            let error = AnalyticsError.configuration(description, suggestion)
            Amplify.Logging.logger(forCategory: "Analytics").error(error: error)
            Amplify.Hub.dispatch(to: .analytics, payload: HubPayload(eventName: eventName, data: error))
        }
    }

    /// Associates later events with `userId`.
    public func identifyUser(userId: String, userProfile: AnalyticsUserProfile? = nil) {
        each(HubPayload.EventName.Analytics.identifyUser) { $0.identifyUser(userId: userId, userProfile: userProfile) }
    }

    /// Records an event.
    public func record(event: any AnalyticsEvent) {
        each(HubPayload.EventName.Analytics.record) { $0.record(event: event) }
    }

    /// Records an event with only a name.
    public func record(eventWithName eventName: String) {
        each(HubPayload.EventName.Analytics.record) { $0.record(eventWithName: eventName) }
    }

    /// Adds properties to every later event.
    public func registerGlobalProperties(_ properties: AnalyticsProperties) {
        each(HubPayload.EventName.Analytics.record) { $0.registerGlobalProperties(properties) }
    }

    /// Removes global properties (all of them when `keys` is `nil`).
    public func unregisterGlobalProperties(_ keys: Set<String>? = nil) {
        each(HubPayload.EventName.Analytics.record) { $0.unregisterGlobalProperties(keys) }
    }

    /// Removes the named global properties; with no name, all of them (as amplify-swift does).
    public func unregisterGlobalProperties(_ keys: String...) {
        unregisterGlobalProperties(keys)
    }

    /// Removes the global properties named in `keys` (duplicates are ignored); an empty array
    /// removes all of them, as in amplify-swift.
    public func unregisterGlobalProperties(_ keys: [String]) {
        unregisterGlobalProperties(keys.isEmpty ? nil : Set(keys))
    }

    /// Sends what is queued now.
    public func flushEvents() {
        each(HubPayload.EventName.Analytics.flushEvents) { $0.flushEvents() }
    }

    /// Starts recording again.
    public func enable() {
        each(HubPayload.EventName.Analytics.record) { $0.enable() }
    }

    /// Stops recording.
    public func disable() {
        each(HubPayload.EventName.Analytics.record) { $0.disable() }
    }
}
