extension Amplify {
    /// This package's version: what its plugins report as `version` (`AmplifyVersionable`) and
    /// what `amplify --version` prints.
    public static let version = "0.1.0"
}
