import Amplify

extension AWSS3StoragePlugin: AmplifyVersionable {
    /// This package's version, `Amplify.version`.
    public var version: String { Amplify.version }
}
