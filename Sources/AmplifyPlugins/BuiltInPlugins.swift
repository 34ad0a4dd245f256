import AWSAPIPlugin
import AWSCognitoAuthPlugin
import AWSKinesisAnalyticsPlugin
import AWSS3StoragePlugin
@_exported import Amplify
import AppSyncEventsHubBridgePlugin
import LocalAnalyticsPlugin
import LocalAuthPlugin
import LocalStoragePlugin
import RedisHubBridgePlugin

extension Amplify {
    /// Registers a factory for every plugin this package ships, so `Amplify.configure()` can
    /// create each one a configuration file names. Call it once, before `configure`; calling it
    /// again changes nothing.
    ///
    /// Registered keys: `swiftLogLoggingPlugin` and `consoleLoggingPlugin` (Logging), `defaultHubPlugin` and
    /// `redisHubBridgePlugin` (Hub), `localAuthPlugin` and `awsCognitoAuthPlugin` (Auth), `localAnalyticsPlugin` and `awsKinesisAnalyticsPlugin` (Analytics), `localStoragePlugin` and `awsS3StoragePlugin` (Storage), `awsAPIPlugin` (API). Each category plugin this package adds registers here too.
    public static func registerBuiltInPlugins() {
        registry.register(key: SwiftLogLoggingPlugin.pluginKey, category: .logging) { SwiftLogLoggingPlugin() }
        registry.register(key: ConsoleLoggingPlugin.pluginKey, category: .logging) { ConsoleLoggingPlugin() }
        registry.register(key: DefaultHubPlugin.pluginKey, category: .hub) { DefaultHubPlugin() }
        registry.register(key: LocalAuthPlugin.pluginKey, category: .auth) { LocalAuthPlugin() }
        registry.register(key: AWSCognitoAuthPlugin.pluginKey, category: .auth, namesResources: CognitoAuthConfiguration.namesResources) {
            AWSCognitoAuthPlugin()
        }
        registry.register(key: LocalAnalyticsPlugin.pluginKey, category: .analytics) { LocalAnalyticsPlugin() }
        registry.register(key: AWSKinesisAnalyticsPlugin.pluginKey, category: .analytics) { AWSKinesisAnalyticsPlugin() }
        registry.register(key: LocalStoragePlugin.pluginKey, category: .storage) { LocalStoragePlugin() }
        registry.register(key: AWSS3StoragePlugin.pluginKey, category: .storage) { AWSS3StoragePlugin() }
        registry.register(key: AWSAPIPlugin.pluginKey, category: .api) { AWSAPIPlugin() }
        RedisHubBridgePlugin.register()
        AppSyncEventsHubBridgePlugin.register()
    }
}
