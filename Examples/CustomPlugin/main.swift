import Amplify
import Foundation

// Writing a plugin: a third-party Analytics plugin, registered by key and configured from its
// own block of the configuration file, then used through Amplify.Analytics.
//
//   swift run CustomPlugin [path/to/amplifyconfiguration.json]

let file =
    CommandLine.arguments.dropFirst().first.map { URL(fileURLWithPath: $0) }
    ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("amplifyconfiguration.json")

// 1. Register the plugin's factory under the key its block uses in the file.
Amplify.registry.register(key: PrintingAnalyticsPlugin.pluginKey, category: .analytics) { PrintingAnalyticsPlugin() }

// 2. Watch what the plugin reports on the Hub (listeners run on the Amplify event loop).
let outcomes = Amplify.Hub.listen(to: .analytics) { payload in
    FileHandle.standardError.write(Data("hub: \(payload.eventName) \(payload.data.map { "\($0)" } ?? "")\n".utf8))
}

// 3. Configure: Amplify makes the plugin from the factory and hands it its block.
do {
    try Amplify.configure(AmplifyConfiguration(configurationFile: file))
} catch let error as any AmplifyError {
    FileHandle.standardError.write(Data("error: \(error.errorDescription)\nhow to fix: \(error.recoverySuggestion)\n".utf8))
    exit(1)
}

// 4. Use it through the category, exactly as with a built-in plugin.
Amplify.Analytics.identifyUser(userId: "user-42")
Amplify.Analytics.registerGlobalProperties(["region": "eu-west-1"])
Amplify.Analytics.record(event: BasicAnalyticsEvent(name: "orderPlaced", properties: ["items": 3, "total": 59.5, "express": true]))
Amplify.Analytics.record(eventWithName: "appClosed")
Amplify.Analytics.flushEvents()

// 5. Let the Hub deliver what was dispatched, then shut everything down.
await Amplify.Hub.flush()
Amplify.Hub.removeListener(outcomes)
await Amplify.reset()
