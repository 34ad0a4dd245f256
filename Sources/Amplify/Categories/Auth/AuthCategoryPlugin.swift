/// An Auth plugin: the backend behind `Amplify.Auth`.
public protocol AuthCategoryPlugin: Plugin, AuthCategoryBehavior {}

extension AuthCategoryPlugin {
    /// Always `.auth`.
    public var categoryType: CategoryType { .auth }
}
