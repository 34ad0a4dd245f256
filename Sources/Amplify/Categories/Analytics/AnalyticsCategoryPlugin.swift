/// An Analytics plugin: the backend behind `Amplify.Analytics`.
public protocol AnalyticsCategoryPlugin: Plugin, AnalyticsCategoryBehavior {}

extension AnalyticsCategoryPlugin {
    /// Always `.analytics`.
    public var categoryType: CategoryType { .analytics }
}
