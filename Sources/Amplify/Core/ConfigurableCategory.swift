/// What `Amplify.configure` needs of a category: the plugins it holds, and how to add, discard
/// and mark them configured. Adding a category to the package is one conformance and one entry
/// in `Amplify.configurableCategories`.
protocol ConfigurableCategory: AnyObject, Sendable {
    /// The category.
    var categoryType: CategoryType { get }
    /// The plugins it holds now, by key.
    var configurablePlugins: [PluginKey: any Plugin] { get }
    /// Takes `plugin` if it implements this category's plugin protocol; `false` if it does not.
    /// - Throws: what adding the plugin throws (an empty key, after `configure`).
    func accept(_ plugin: any Plugin) throws -> Bool
    /// Removes a plugin made for a configuration that then failed.
    func discard(_ key: PluginKey)
    /// Marks the category configured, or not.
    func markConfigured(_ configured: Bool)
    /// Why calls find no plugin, when the configuration named one that was not applied (a
    /// retired service); `nil` to clear.
    func setMissingPluginAdvice(_ advice: (description: String, suggestion: String)?)
    /// The keys `plugin` answers to in a configuration file, its own first.
    func configurationKeys(of plugin: any Plugin) -> [PluginKey]
}

extension ConfigurableCategory {
    /// A plugin answers to its own key.
    func configurationKeys(of plugin: any Plugin) -> [PluginKey] { [plugin.key] }
}

/// A category that holds any number of plugins of one protocol in a ``CategoryPlugins``.
protocol PluginHoldingCategory: ConfigurableCategory {
    associatedtype CategoryPlugin: Sendable
    var plugins: CategoryPlugins<CategoryPlugin> { get }
}

/// The default: everything goes through the category's ``CategoryPlugins``.
extension PluginHoldingCategory {
    var configurablePlugins: [PluginKey: any Plugin] { plugins.all.compactMapValues { $0 as? any Plugin } }

    func accept(_ plugin: any Plugin) throws -> Bool {
        guard let typed = plugin as? CategoryPlugin else { return false }
        try plugins.add(typed, key: plugin.key)
        return true
    }

    func discard(_ key: PluginKey) { plugins.remove(key: key) }

    func markConfigured(_ configured: Bool) { plugins.markConfigured(configured) }

    func setMissingPluginAdvice(_ advice: (description: String, suggestion: String)?) { plugins.setMissingPluginAdvice(advice) }
}

extension AuthCategory: PluginHoldingCategory {}
extension AnalyticsCategory: PluginHoldingCategory {}
extension StorageCategory: PluginHoldingCategory {}
extension APICategory: PluginHoldingCategory {}

/// The Hub holds the plugins added, or the default one, started on first use.
extension HubCategory: ConfigurableCategory {
    var configurablePlugins: [PluginKey: any Plugin] {
        let existing = existingPlugins
        if existing.isEmpty {
            let current = plugin
            return [current.key: current]
        }
        return Dictionary(existing.map { ($0.key, $0 as any Plugin) }, uniquingKeysWith: { first, _ in first })
    }

    func accept(_ plugin: any Plugin) throws -> Bool {
        guard let hub = plugin as? any HubCategoryPlugin else { return false }
        try add(plugin: hub)
        return true
    }

    func discard(_ key: PluginKey) {}
    func markConfigured(_ configured: Bool) {}
    func setMissingPluginAdvice(_ advice: (description: String, suggestion: String)?) {}
}

/// Logging holds one plugin, the swift-log one until configuration replaces it.
extension LoggingCategory: ConfigurableCategory {
    var configurablePlugins: [PluginKey: any Plugin] {
        let current = plugin
        return [current.key: current]
    }

    func accept(_ plugin: any Plugin) throws -> Bool {
        guard let logging = plugin as? any LoggingCategoryPlugin else { return false }
        try add(plugin: logging)
        return true
    }

    func discard(_ key: PluginKey) {}
    func markConfigured(_ configured: Bool) {}
    func setMissingPluginAdvice(_ advice: (description: String, suggestion: String)?) {}
}
