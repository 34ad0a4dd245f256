import Amplify

extension LocalAnalyticsPlugin: AmplifyVersionable {
    /// This package's version, `Amplify.version`.
    public var version: String { Amplify.version }
}
