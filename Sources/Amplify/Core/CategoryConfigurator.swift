import Foundation

/// Applies a configuration: creates the plugins it names from the registry, then configures
/// every category in order. A plugin key that no plugin answers to is a finding, not an error
/// (amplify-swift's rule); the rest configures. Undoes the plugins it created if anything fails.
struct CategoryConfigurator {
    let configuration: AmplifyConfiguration
    let categories: [any ConfigurableCategory]

    private var fileName: String { configuration.sourceFile?.path ?? "the configuration" }

    /// Configures every category; returns the findings of the file and of this run.
    /// - Throws: ``PluginError`` naming the JSON path of what failed.
    func run() throws -> [ConfigurationFinding] {
        var created: [(any ConfigurableCategory, PluginKey)] = []
        var findings = configuration.findings
        do {
            for category in categories {
                guard let block = configuration[category.categoryType] else {
                    category.setMissingPluginAdvice(nil)
                    continue
                }
                var skipped: [ConfigurationFinding] = []
                let present = category.configurablePlugins
                let answered = Set(present.values.flatMap { category.configurationKeys(of: $0) })
                for key in block.plugins.keys.sorted() where !answered.contains(key) {
                    guard let factory = Amplify.registry.factory(for: key) else {
                        skipped.append(unusedKey(key, category: category))
                        continue
                    }
                    if factory.category == category.categoryType, !factory.namesResources(block.plugins[key] ?? .null) {
                        skipped.append(stubBlock(key, category: category.categoryType))
                        continue
                    }
                    let plugin = try makePlugin(key, with: factory, for: category.categoryType)
                    guard try category.accept(plugin) else {
                        throw PluginError.mismatchedPlugin(
                            "The factory for '\(key)' made a \(type(of: plugin)), which is not a \(category.categoryType.displayName) plugin.",
                            "Register the factory under the category its plugins implement.")
                    }
                    created.append((category, key))
                }
                let retired = skipped.first { $0.kind == .retiredService }
                category.setMissingPluginAdvice(retired.map { ($0.message, $0.suggestion) })
                findings += skipped
            }
            for category in categories {
                findings += try configure(category)
            }
        } catch {
            for (category, key) in created { category.discard(key) }
            for category in categories { category.markConfigured(false) }
            throw error
        }
        return findings
    }

    /// The plugin `factory` (the registry's for `key`) makes for a block under `category`.
    private func makePlugin(_ key: PluginKey, with factory: PluginFactory, for category: CategoryType) throws -> any Plugin {
        let path = "\(category.rawValue).plugins.\(key)"
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

    /// A block its plugin's factory finds nothing to use in (an empty stub).
    private func stubBlock(_ key: PluginKey, category: CategoryType) -> ConfigurationFinding {
        let path = "\(category.rawValue).plugins.\(key)"
        return ConfigurationFinding(
            kind: .placeholder, path: path,
            message:
                "`\(path)` in \(fileName) names nothing the \(key) plugin can use (the Amplify CLI writes such a stub for a project without that resource); no plugin is made for it, and the rest configures.",
            suggestion:
                "Nothing to do, unless the project should have \(category.displayName): then add the resource with the Amplify tooling and pull the file again."
        )
    }

    private func unusedKey(_ key: PluginKey, category: any ConfigurableCategory) -> ConfigurationFinding {
        let type = category.categoryType
        let path = "\(type.rawValue).plugins.\(key)"
        if key == "awsPinpointAnalyticsPlugin" {
            return ConfigurationFinding(
                kind: .retiredService, path: path,
                message: "`\(path)` in \(fileName) names Amazon Pinpoint, which reached end of support on 2026-10-30; the block is skipped.",
                suggestion:
                    "Replace the block with an `awsKinesisAnalyticsPlugin` block (Kinesis Data Streams or Firehose) or a `localAnalyticsPlugin` block."
            )
        }
        let known = Set(Amplify.registry.keys(for: type)).union(category.configurablePlugins.keys).sorted()
        let knownText = known.isEmpty ? "none are known in this process" : "known keys: \(known.joined(separator: ", "))"
        return ConfigurationFinding(
            kind: .unusedPlugin, path: path,
            message:
                "No plugin found for configuration key '\(key)' (`\(path)` in \(fileName)): no \(type.displayName) plugin with that key was added or registered (\(knownText)); the block is skipped.",
            suggestion:
                "If the block should be used, add a plugin with that key (Amplify.add(plugin:)) or register its factory (Amplify.registerBuiltInPlugins() does for this package's plugins) before Amplify.configure(); otherwise nothing to do."
        )
    }

    /// Configures every plugin of `category`; returns what the plugins warned about.
    private func configure(_ category: any ConfigurableCategory) throws -> [ConfigurationFinding] {
        let type = category.categoryType
        let block = configuration[type]
        var warnings: [ConfigurationFinding] = []
        for (key, plugin) in category.configurablePlugins.sorted(by: { $0.key < $1.key }) {
            let pluginBlock = category.configurationKeys(of: plugin).lazy.compactMap { block?.plugins[$0] }.first
            do {
                try plugin.configure(using: pluginBlock)
                for warning in (plugin as? any ConfigurationWarningsProviding)?.configurationWarnings ?? [] {
                    let path = "\(type.rawValue).plugins.\(key).\(warning.path)"
                    let named = configuration.sourcePaths[path].map { "`\($0)` (read as `\(path)`)" } ?? "`\(path)`"
                    warnings.append(
                        ConfigurationFinding(
                            kind: .suspiciousValue, path: path, message: "\(named) in \(fileName): \(warning.message)", suggestion: warning.suggestion
                        ))
                }
            } catch let error as ConfigurationValueError {
                let path = "\(type.rawValue).plugins.\(key).\(error.keyPath)"
                // A file in another shape is named by its own key, with the path it was read as.
                if let source = configuration.sourcePaths[path] {
                    throw PluginError.pluginConfigurationError(
                        "`\(source)` in \(fileName) \(error.problem); expected \(error.expected) (it is read as `\(path)`).",
                        "Set `\(source)` to \(error.expected) (the Amplify tooling writes it when the resource exists).",
                        error)
                }
                throw PluginError.pluginConfigurationError(
                    "`\(path)` in \(fileName) \(error.problem); expected \(error.expected).",
                    "Set `\(path)` to \(error.expected) (the Amplify CLI writes it when the resource exists).",
                    error)
            }
        }
        category.markConfigured(true)
        return warnings
    }
}
