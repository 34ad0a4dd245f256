/// One category's block of the configuration file: `{"plugins": {"<pluginKey>": {...}}}`.
public struct CategoryConfiguration: Codable, Sendable, Equatable {
    /// Each plugin's own block, by plugin key.
    public var plugins: [String: JSONValue]

    /// A category block with the given plugin blocks.
    public init(plugins: [String: JSONValue] = [:]) {
        self.plugins = plugins
    }
}

/// The Auth category's block (amplify-swift's name).
public typealias AuthCategoryConfiguration = CategoryConfiguration
/// The Analytics category's block (amplify-swift's name).
public typealias AnalyticsCategoryConfiguration = CategoryConfiguration
/// The Storage category's block (amplify-swift's name).
public typealias StorageCategoryConfiguration = CategoryConfiguration
/// The Hub category's block (amplify-swift's name).
public typealias HubCategoryConfiguration = CategoryConfiguration
/// The Logging category's block (amplify-swift's name).
public typealias LoggingCategoryConfiguration = CategoryConfiguration
/// The API category's block (amplify-swift's name).
public typealias APICategoryConfiguration = CategoryConfiguration
