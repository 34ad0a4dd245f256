/// A Hub plugin: the engine behind `Amplify.Hub`.
public protocol HubCategoryPlugin: Plugin, HubCategoryBehavior {}

extension HubCategoryPlugin {
    /// Always `.hub`.
    public var categoryType: CategoryType { .hub }
}

/// A Hub plugin that delivers through another Hub plugin and adds to it (a bridge to other
/// processes). `Amplify.add(plugin:)` lets it replace the plugin it wraps even when that plugin
/// already has listeners, since they keep hearing everything through the wrapper.
public protocol HubPluginWrapper: HubCategoryPlugin {
    /// The plugin this one delivers through.
    var wrappedPlugin: any HubCategoryPlugin { get }
}
