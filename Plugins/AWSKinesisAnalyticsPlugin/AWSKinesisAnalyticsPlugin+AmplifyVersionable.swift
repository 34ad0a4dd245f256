import Amplify

extension AWSKinesisAnalyticsPlugin: AmplifyVersionable {
    /// This package's version, `Amplify.version`.
    public var version: String { Amplify.version }
}
