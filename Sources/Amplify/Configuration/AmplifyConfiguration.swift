import Foundation

/// The contents of an `amplifyconfiguration.json`: one optional block per category.
///
/// Load one with ``init(configurationFile:)`` (or let `Amplify.configure()` find the file),
/// build one in code, or decode one with `JSONDecoder`. Blocks for categories this package does
/// not implement (`geo`, `predictions`, ...) are kept in ``otherCategories`` and skipped by `configure`.
public struct AmplifyConfiguration: Codable, Sendable, Equatable {
    /// The blocks of the categories this package implements, by category.
    public var categories: [CategoryType: CategoryConfiguration]
    /// Blocks of categories this package does not implement, by their key in the file.
    public var otherCategories: [String: JSONValue]
    /// The folder of the file it was read from: relative paths in plugin blocks resolve against
    /// it (see `Amplify.resolvePath(_:)`). `nil` for configurations built in code.
    public var baseDirectory: URL?
    /// The file it was read from, if any (used in messages).
    public var sourceFile: URL?
    /// The shape the file was written in.
    public var format: ConfigurationFormat = .gen1
    /// What reading the file found but did not apply: keys beyond the Gen 2 schema, a
    /// placeholder file, categories this package does not have. `Amplify.configure` adds its own
    /// (plugin keys with no plugin) to `Amplify.configurationFindings`.
    public var findings: [ConfigurationFinding] = []
    /// The Gen 2 file's `custom` section (the application's own outputs), kept as it is.
    public var custom: JSONValue?
    /// For a file not in the Gen 1 shape, where translated values came from:
    /// `auth.plugins.awsCognitoAuthPlugin.CognitoUserPool.Default.PoolId` → `aws_user_pools_id`,
    /// so an error about a value names the key the file has.
    package var sourcePaths: [String: String] = [:]

    /// The Analytics block.
    public var analytics: AnalyticsCategoryConfiguration? {
        get { categories[.analytics] }
        set { categories[.analytics] = newValue }
    }
    /// The API block.
    public var api: APICategoryConfiguration? {
        get { categories[.api] }
        set { categories[.api] = newValue }
    }
    /// The Auth block.
    public var auth: AuthCategoryConfiguration? {
        get { categories[.auth] }
        set { categories[.auth] = newValue }
    }
    /// The Hub block.
    public var hub: HubCategoryConfiguration? {
        get { categories[.hub] }
        set { categories[.hub] = newValue }
    }
    /// The Logging block.
    public var logging: LoggingCategoryConfiguration? {
        get { categories[.logging] }
        set { categories[.logging] = newValue }
    }
    /// The Storage block.
    public var storage: StorageCategoryConfiguration? {
        get { categories[.storage] }
        set { categories[.storage] = newValue }
    }

    /// A configuration with the given blocks.
    public init(
        analytics: AnalyticsCategoryConfiguration? = nil,
        api: APICategoryConfiguration? = nil,
        auth: AuthCategoryConfiguration? = nil,
        hub: HubCategoryConfiguration? = nil,
        logging: LoggingCategoryConfiguration? = nil,
        storage: StorageCategoryConfiguration? = nil,
        otherCategories: [String: JSONValue] = [:],
        baseDirectory: URL? = nil
    ) {
        categories = [:]
        self.otherCategories = otherCategories
        self.baseDirectory = baseDirectory
        self.analytics = analytics
        self.api = api
        self.auth = auth
        self.hub = hub
        self.logging = logging
        self.storage = storage
    }

    /// Loads a configuration file from `configurationFile`, recognising its shape by its
    /// content: Gen 1 `amplifyconfiguration.json`, `awsconfiguration.json`, Gen 2
    /// `amplify_outputs.json`, or Amplify JS's files (the flat `aws-exports` shape and the v6
    /// resources object). See ``ConfigurationFormat``.
    ///
    /// - Throws: ``ConfigurationError/invalidAmplifyConfigurationFile(_:_:_:)`` (or
    ///   ``ConfigurationError/invalidAmplifyOutputsFile(_:_:_:)`` for a Gen 2 file) naming the
    ///   file and what is wrong: missing, not a regular file, too large, or a block of the wrong
    ///   shape (with its JSON path; a Gen 2 file's is ``ConfigurationError/unableToDecode(_:_:_:)``,
    ///   as amplify-swift); ``ConfigurationError/unableToDecode(_:_:_:)`` for bytes that are not
    ///   UTF-8 or not JSON (with line and column).
    public init(configurationFile: URL) throws {
        self = try ConfigurationDocument.load(configurationFile)
    }

    /// Decodes from any decoder, with the same checks as ``init(configurationFile:)``.
    /// - Throws: ``ConfigurationError/invalidAmplifyConfigurationFile(_:_:_:)``.
    public init(from decoder: any Decoder) throws {
        self = try AmplifyConfiguration(validating: JSONValue(from: decoder), file: nil)
    }

    /// Encodes the category blocks (and the other categories' blocks) as JSON.
    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }

    /// The configuration as the JSON object it came from.
    public var json: JSONValue {
        var object = otherCategories
        for (category, block) in categories {
            object[category.rawValue] = .object(["plugins": .object(block.plugins)])
        }
        return .object(object)
    }

    /// The block for `category`, for the categories this package implements.
    public subscript(category: CategoryType) -> CategoryConfiguration? {
        categories[category]
    }

    /// Checks the shape of a parsed file in the category shape: an object whose category
    /// blocks are objects with a `plugins` object whose members are objects.
    init(validating json: JSONValue, file: URL?) throws {
        let where_ = file.map { " in \($0.path)" } ?? ""
        guard let top = json.asObject else {
            throw ConfigurationError.invalidAmplifyConfigurationFile(
                "The configuration\(where_) is \(json.typeDescription), but it must be a JSON object with one block per category.",
                "Write an object such as {\"auth\": {\"plugins\": {...}}}, as the Amplify CLI does.")
        }
        self.init()
        let configurable = Set(CategoryType.configurationOrder)
        for (key, value) in top where key != "UserAgent" && key != "Version" {
            guard let category = CategoryType(rawValue: key), configurable.contains(category) else {
                otherCategories[key] = value
                continue
            }
            categories[category] = try Self.validateCategory(key: key, value: value, where_: where_)
        }
    }

    private static func validateCategory(key: String, value: JSONValue, where_: String) throws -> CategoryConfiguration {
        guard let block = value.asObject else {
            throw ConfigurationError.invalidAmplifyConfigurationFile(
                "`\(key)`\(where_) is \(value.typeDescription), but a category block must be an object.",
                "Write `\"\(key)\": {\"plugins\": {\"<pluginKey>\": {...}}}`.")
        }
        guard let pluginsValue = block["plugins"] else {
            throw ConfigurationError.invalidAmplifyConfigurationFile(
                "`\(key)`\(where_) has no `plugins` object.",
                "Write `\"\(key)\": {\"plugins\": {\"<pluginKey>\": {...}}}`.")
        }
        guard let plugins = pluginsValue.asObject else {
            throw ConfigurationError.invalidAmplifyConfigurationFile(
                "`\(key).plugins`\(where_) is \(pluginsValue.typeDescription), but it must be an object keyed by plugin name.",
                "Write `\"plugins\": {\"<pluginKey>\": {...}}`.")
        }
        for (pluginKey, pluginBlock) in plugins where pluginBlock.asObject == nil {
            throw ConfigurationError.invalidAmplifyConfigurationFile(
                "`\(key).plugins.\(pluginKey)`\(where_) is \(pluginBlock.typeDescription), but a plugin block must be an object.",
                "Write the plugin's settings as an object: `\"\(pluginKey)\": {...}` (use {} for none).")
        }
        return CategoryConfiguration(plugins: plugins)
    }
}
