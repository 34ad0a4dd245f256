extension DefaultHubPlugin: AmplifyVersionable {
    /// This package's version, ``Amplify/Amplify/version``.
    public var version: String { Amplify.version }
}
