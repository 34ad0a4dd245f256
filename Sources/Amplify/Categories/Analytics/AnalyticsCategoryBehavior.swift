/// What the Analytics category does. Calls are fire-and-forget: they return at once, and their
/// outcomes go to the Hub's `.analytics` channel (`HubPayload.EventName.Analytics.*`).
public protocol AnalyticsCategoryBehavior: Sendable {
    /// Associates later events with `userId` and records the profile.
    func identifyUser(userId: String, userProfile: AnalyticsUserProfile?)
    /// Records an event.
    func record(event: any AnalyticsEvent)
    /// Records an event with only a name.
    func record(eventWithName eventName: String)
    /// Adds properties to every later event.
    func registerGlobalProperties(_ properties: AnalyticsProperties)
    /// Removes global properties (all of them when `keys` is `nil`).
    func unregisterGlobalProperties(_ keys: Set<String>?)
    /// Sends what is queued now.
    func flushEvents()
    /// Starts recording again.
    func enable()
    /// Stops recording; events recorded while disabled are dropped.
    func disable()
}
