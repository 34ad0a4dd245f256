import AmplifyConcurrency

/// Makes a plugin for a key named in the configuration file.
public struct PluginFactory: Sendable {
    /// The key the factory answers to.
    public let key: PluginKey
    /// The category its plugins belong to.
    public let category: CategoryType
    /// Creates a fresh, unconfigured plugin.
    public let make: @Sendable () throws -> any Plugin
    /// Whether a configuration block under `key` names anything the plugin can use. For a block
    /// it answers `false` to (the empty stub the Amplify CLI writes for a resource the project
    /// does not have) no plugin is made: `Amplify.configure()` reports a
    /// ``ConfigurationFinding/Kind/placeholder`` finding and configures the rest. Called on the
    /// thread that calls `configure`.
    public let namesResources: @Sendable (JSONValue) -> Bool

    /// Describes a factory for `key` in `category`; with no `namesResources`, every block is used.
    public init(
        key: PluginKey, category: CategoryType, namesResources: @escaping @Sendable (JSONValue) -> Bool = { _ in true },
        make: @escaping @Sendable () throws -> any Plugin
    ) {
        self.key = key
        self.category = category
        self.namesResources = namesResources
        self.make = make
    }
}

/// Maps plugin keys to factories, so `Amplify.configure()` can create every plugin the
/// configuration file names. Registration lasts for the life of the process (it survives
/// `Amplify.reset()`). Thread-safe.
///
/// The core's own Logging plugins are registered from the start (`swiftLogLoggingPlugin` and
/// `consoleLoggingPlugin`), so a configuration file may choose either without further calls.
public final class PluginRegistry: Sendable {
    private let factories = Locked<[PluginKey: PluginFactory]>([
        SwiftLogLoggingPlugin.pluginKey: PluginFactory(key: SwiftLogLoggingPlugin.pluginKey, category: .logging) { SwiftLogLoggingPlugin() },
        ConsoleLoggingPlugin.pluginKey: PluginFactory(key: ConsoleLoggingPlugin.pluginKey, category: .logging) { ConsoleLoggingPlugin() },
    ])

    init() {}

    /// Registers (or replaces) the factory for `factory.key`.
    public func register(_ factory: PluginFactory) {
        factories.withLock { $0[factory.key] = factory }
    }

    /// Registers a factory that calls `make` for `key` in `category`, for the blocks that
    /// `namesResources` accepts (all of them by default; see ``PluginFactory/namesResources``).
    public func register(
        key: PluginKey, category: CategoryType, namesResources: @escaping @Sendable (JSONValue) -> Bool = { _ in true },
        make: @escaping @Sendable () throws -> any Plugin
    ) {
        register(PluginFactory(key: key, category: category, namesResources: namesResources, make: make))
    }

    /// The factory registered for `key`, if any.
    public func factory(for key: PluginKey) -> PluginFactory? {
        factories.withLock { $0[key] }
    }

    /// The keys registered for `category`, sorted.
    public func keys(for category: CategoryType) -> [PluginKey] {
        factories.withLock { $0.values.filter { $0.category == category }.map(\.key).sorted() }
    }

    /// Forgets the factory for `key`, if any.
    public func unregister(_ key: PluginKey) {
        factories.withLock { _ = $0.removeValue(forKey: key) }
    }
}
