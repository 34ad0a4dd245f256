/// A Storage plugin: the backend behind `Amplify.Storage`.
public protocol StorageCategoryPlugin: Plugin, StorageCategoryBehavior {}

extension StorageCategoryPlugin {
    /// Always `.storage`.
    public var categoryType: CategoryType { .storage }
}
