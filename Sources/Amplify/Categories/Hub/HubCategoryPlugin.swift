/// A Hub plugin: the engine behind `Amplify.Hub`.
public protocol HubCategoryPlugin: Plugin, HubCategoryBehavior {}

extension HubCategoryPlugin {
    /// Always `.hub`.
    public var categoryType: CategoryType { .hub }
}
