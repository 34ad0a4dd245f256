import Amplify
import AmplifyConcurrency
import Foundation

/// A third-party Analytics plugin: it writes every recorded event as one JSON line to an output
/// (standard output by default), and reports each call's outcome on the Hub, as the built-in
/// plugins do.
///
/// Its block in `amplifyconfiguration.json`:
/// `"analytics": {"plugins": {"printingAnalyticsPlugin": {"appName": "orders-service", "includeTimestamps": false}}}`
final class PrintingAnalyticsPlugin: AnalyticsCategoryPlugin {
    /// The key its block sits under.
    static let pluginKey = "printingAnalyticsPlugin"

    private struct State {
        var appName = "app"
        var includeTimestamps = true
        var enabled = true
        var userId: String?
        var globalProperties: [String: JSONValue] = [:]
    }

    private let state = Locked(State())
    private let output: @Sendable (String) -> Void

    init(output: @escaping @Sendable (String) -> Void = { print($0) }) {
        self.output = output
    }

    var key: PluginKey { Self.pluginKey }

    /// Reads `appName` (required) and `includeTimestamps` (optional) from the plugin's block.
    func configure(using configuration: Any?) throws {
        let block = configuration as? JSONValue ?? [:]
        let appName = try block.requiredString("appName")
        let timestamps = try block.optionalBool("includeTimestamps") ?? true
        state.withLock {
            $0.appName = appName
            $0.includeTimestamps = timestamps
        }
    }

    func reset() async {
        state.withLock { $0 = State() }
    }

    func identifyUser(userId: String, userProfile: AnalyticsUserProfile?) {
        state.withLock { $0.userId = userId }
        Amplify.Hub.dispatch(to: .analytics, payload: HubPayload(eventName: HubPayload.EventName.Analytics.identifyUser, data: userId))
    }

    func record(event: any AnalyticsEvent) {
        let line: String? = state.withLock { state in
            guard state.enabled else { return nil }
            var object = state.globalProperties
            for (name, value) in event.properties ?? [:] { object[name] = value.jsonValue }
            object["event"] = .string(event.name)
            object["app"] = .string(state.appName)
            if let userId = state.userId { object["user"] = .string(userId) }
            if state.includeTimestamps { object["time"] = .number(Date().timeIntervalSince1970) }
            return Self.encode(.object(object))
        }
        guard let line else { return }
        output(line)
        Amplify.Hub.dispatch(to: .analytics, payload: HubPayload(eventName: HubPayload.EventName.Analytics.record, data: event.name))
    }

    func record(eventWithName eventName: String) {
        record(event: BasicAnalyticsEvent(name: eventName))
    }

    func registerGlobalProperties(_ properties: AnalyticsProperties) {
        state.withLock { state in
            for (name, value) in properties { state.globalProperties[name] = value.jsonValue }
        }
    }

    func unregisterGlobalProperties(_ keys: Set<String>?) {
        state.withLock { state in
            guard let keys else { return state.globalProperties.removeAll() }
            for key in keys { state.globalProperties.removeValue(forKey: key) }
        }
    }

    /// Lines are written as events are recorded, so there is nothing to flush; the outcome still
    /// goes to the Hub.
    func flushEvents() {
        Amplify.Hub.dispatch(to: .analytics, payload: HubPayload(eventName: HubPayload.EventName.Analytics.flushEvents, data: 0))
    }

    func enable() { state.withLock { $0.enabled = true } }
    func disable() { state.withLock { $0.enabled = false } }

    private static func encode(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
