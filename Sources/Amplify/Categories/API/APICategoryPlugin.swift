/// An API plugin: the backend behind `Amplify.API`.
public protocol APICategoryPlugin: Plugin, APICategoryBehavior {}

extension APICategoryPlugin {
    /// Always `.api`.
    public var categoryType: CategoryType { .api }
}
