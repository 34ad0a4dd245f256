/// The string that names a plugin in the configuration file (`"awsCognitoAuthPlugin"`).
public typealias PluginKey = String

/// The categories Amplify knows. This package implements Analytics, API, Auth, Hub, Logging and
/// Storage; blocks for the others in a configuration file are skipped with a log message.
public enum CategoryType: String, CaseIterable, Sendable, Codable {
    /// One case per Amplify category (its key in the configuration file).
    case analytics, api, auth, dataStore, geo, hub, logging, predictions, pushNotifications, storage

    /// The category's name as people write it ("Auth").
    public var displayName: String {
        switch self {
        case .analytics: "Analytics"
        case .api: "API"
        case .auth: "Auth"
        case .dataStore: "DataStore"
        case .geo: "Geo"
        case .hub: "Hub"
        case .logging: "Logging"
        case .predictions: "Predictions"
        case .pushNotifications: "PushNotifications"
        case .storage: "Storage"
        }
    }

    /// The categories this package can configure, in configuration order: Logging, Hub, Auth,
    /// then the rest.
    public static var configurationOrder: [CategoryType] { Amplify.configurableCategories.map(\.categoryType) }
}

/// Anything that belongs to a category.
public protocol CategoryTypeable {
    /// The category it belongs to.
    var categoryType: CategoryType { get }
}

/// Something that can be put back to its initial state.
public protocol Resettable {
    /// Releases what it holds (handles, files, timers) and forgets its configuration.
    func reset() async
}

/// A category plugin: the backend behind a category facade such as `Amplify.Auth`.
///
/// Differs from amplify-swift in one way that Swift 6 requires: plugins are `Sendable` classes,
/// since categories call them from any task.
public protocol Plugin: AnyObject, Sendable, CategoryTypeable, Resettable {
    /// The key under which the plugin's block sits in the configuration file.
    var key: PluginKey { get }

    /// Applies the plugin's own block of the configuration file: a ``JSONValue`` (or `nil`
    /// when the file has no block for it but the plugin was added with `Amplify.add(plugin:)`).
    ///
    /// - Throws: ``ConfigurationValueError`` for a missing or mistyped value (Amplify adds the
    ///   full JSON path), or any ``AmplifyError``.
    func configure(using configuration: Any?) throws
}
