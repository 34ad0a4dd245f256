// swift-symbolgraph-extract leaves out every symbol of a module named `<Module>Version…` (it takes
// them for generated version constants), so this protocol is missing from the DocC catalogue:
// refer to it as a code span, not a ``link``.

/// Something that reports its version, amplify-swift's `AmplifyVersionable`: every plugin of this
/// package conforms and reports ``Amplify/Amplify/version``.
public protocol AmplifyVersionable {
    /// The version of the code, such as `"0.1.0"`.
    var version: String { get }
}

extension AmplifyVersionable where Self: AnyObject {
    /// The default, for classes that do not say: `"Not Available"`. amplify-swift reads the
    /// version from the class's bundle (`CFBundleShortVersionString`), which a Swift package built
    /// on Linux does not have; a plugin of another package implements `version` to report its own.
    public var version: String { "Not Available" }
}
