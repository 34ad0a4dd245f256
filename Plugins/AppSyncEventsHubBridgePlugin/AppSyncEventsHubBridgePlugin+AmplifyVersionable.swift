import Amplify

extension AppSyncEventsHubBridgePlugin: AmplifyVersionable {
    /// This package's version, `Amplify.version`.
    public var version: String { Amplify.version }
}
