/// An Analytics plugin whose flush can be awaited: what a graceful shutdown needs, so the
/// process ends after its events reached their target (or, when the target cannot be reached,
/// after they are safely stored for the next run). Both Analytics plugins of this package
/// conform.
public protocol AnalyticsFlushWaiting: AnalyticsCategoryPlugin {
    /// Stores what was recorded, sends what is waiting, and returns when that is done.
    func flushAndWait() async
}

extension AnalyticsCategory {
    /// Flushes every plugin and returns when the ones that can be awaited
    /// (``AnalyticsFlushWaiting``) are done; the others are asked with `flushEvents()`. Does
    /// nothing before `configure`.
    public func flushAndWait() async {
        let all = plugins.all.values
        for plugin in all {
            if let waiting = plugin as? any AnalyticsFlushWaiting {
                await waiting.flushAndWait()
            } else {
                plugin.flushEvents()
            }
        }
    }
}
