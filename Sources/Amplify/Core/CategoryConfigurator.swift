import Foundation

/// Applies a configuration: creates the plugins it names from the registry, then configures
/// every category in order. Undoes the plugins it created if anything fails.
struct CategoryConfigurator {
    let configuration: AmplifyConfiguration

    private var fileName: String { configuration.sourceFile?.path ?? "the configuration" }

    func run() throws {
        var created: [(CategoryType, PluginKey)] = []
        do {
            for category in CategoryType.configurationOrder {
                guard let block = configuration[category] else { continue }
                for key in block.plugins.keys.sorted() where !hasPlugin(key, in: category) {
                    try Amplify.add(anyPlugin: makePlugin(key, for: category))
                    created.append((category, key))
                }
            }
            for key in configuration.otherCategories.keys.sorted() {
                Amplify.Logging.logger(forCategory: "Amplify").info(
                    "Skipping the `\(key)` block of \(fileName): this package has no \(key) category.")
            }
            Amplify.setBaseDirectory(configuration.baseDirectory)
            for category in CategoryType.configurationOrder {
                try configure(category)
            }
        } catch {
            for (category, key) in created { remove(key, from: category) }
            for category in CategoryType.configurationOrder { markConfigured(category, false) }
            throw error
        }
    }

    private func hasPlugin(_ key: PluginKey, in category: CategoryType) -> Bool {
        switch category {
        case .auth: Amplify.Auth.plugins.plugin(for: key) != nil
        case .analytics: Amplify.Analytics.plugins.plugin(for: key) != nil
        case .storage: Amplify.Storage.plugins.plugin(for: key) != nil
        case .hub: Amplify.Hub.plugin.key == key
        case .logging: Amplify.Logging.plugin.key == key
        default: false
        }
    }

    private func currentPlugins(of category: CategoryType) -> [PluginKey: any Plugin] {
        switch category {
        case .auth: Amplify.Auth.plugins.all
        case .analytics: Amplify.Analytics.plugins.all
        case .storage: Amplify.Storage.plugins.all
        case .hub: [Amplify.Hub.plugin.key: Amplify.Hub.plugin]
        case .logging: [Amplify.Logging.plugin.key: Amplify.Logging.plugin]
        default: [:]
        }
    }

    private func remove(_ key: PluginKey, from category: CategoryType) {
        switch category {
        case .auth: Amplify.Auth.plugins.remove(key: key)
        case .analytics: Amplify.Analytics.plugins.remove(key: key)
        case .storage: Amplify.Storage.plugins.remove(key: key)
        default: break
        }
    }

    private func markConfigured(_ category: CategoryType, _ configured: Bool) {
        switch category {
        case .auth: Amplify.Auth.plugins.markConfigured(configured)
        case .analytics: Amplify.Analytics.plugins.markConfigured(configured)
        case .storage: Amplify.Storage.plugins.markConfigured(configured)
        default: break
        }
    }

    private func makePlugin(_ key: PluginKey, for category: CategoryType) throws -> any Plugin {
        let path = "\(category.rawValue).plugins.\(key)"
        guard let factory = Amplify.registry.factory(for: key) else {
            throw unknownKey(key, path: path, category: category)
        }
        guard factory.category == category else {
            throw PluginError.mismatchedPlugin(
                "`\(path)` in \(fileName) names '\(key)', which is a \(factory.category.displayName) plugin, under \(category.displayName).",
                "Move the block under `\(factory.category.rawValue).plugins`.")
        }
        let plugin = try factory.make()
        guard plugin.categoryType == category else {
            throw PluginError.mismatchedPlugin(
                "The factory for '\(key)' made a \(plugin.categoryType.displayName) plugin, not a \(category.displayName) one.",
                "Register the factory under the category its plugins implement.")
        }
        return plugin
    }

    private func unknownKey(_ key: PluginKey, path: String, category: CategoryType) -> PluginError {
        let known = Set(Amplify.registry.keys(for: category)).union(currentPlugins(of: category).keys).sorted()
        let knownText = known.isEmpty ? "none are known in this process" : "known keys: \(known.joined(separator: ", "))"
        if key == "awsPinpointAnalyticsPlugin" {
            return PluginError.noSuchPlugin(
                "`\(path)` in \(fileName) names Amazon Pinpoint, which reached end of support on 2026-10-30 ([\(knownText)]).",
                "Replace the block with an `awsKinesisAnalyticsPlugin` block (Kinesis Data Streams or Firehose) or a `localAnalyticsPlugin` block.")
        }
        return PluginError.noSuchPlugin(
            "`\(path)` in \(fileName) names plugin '\(key)', but no \(category.displayName) plugin with that key was added or registered; \(knownText).",
            "Fix the key, call Amplify.registerBuiltInPlugins() (or the plugin package's registration) before Amplify.configure(), or add the plugin with Amplify.add(plugin:).")
    }

    private func configure(_ category: CategoryType) throws {
        let block = configuration[category]
        for (key, plugin) in currentPlugins(of: category).sorted(by: { $0.key < $1.key }) {
            let pluginBlock = block?.plugins[key]
            do {
                try plugin.configure(using: pluginBlock)
            } catch let error as ConfigurationValueError {
                let path = "\(category.rawValue).plugins.\(key).\(error.keyPath)"
                throw PluginError.pluginConfigurationError(
                    "`\(path)` in \(fileName) \(error.problem); expected \(error.expected).",
                    "Set `\(path)` to \(error.expected) (the Amplify CLI writes it when the resource exists).",
                    error)
            }
        }
        markConfigured(category, true)
    }
}
