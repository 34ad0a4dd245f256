import AmplifyConcurrency
import AmplifyEventLoop
import Foundation

/// The entry point: the categories, plugin registration, configuration and reset.
///
/// ```swift
/// Amplify.registerBuiltInPlugins()          // or Amplify.add(plugin: MyPlugin())
/// try Amplify.configure()                   // finds amplifyconfiguration.json
/// let token = Amplify.Hub.listen(to: .auth) { payload in ... }
/// try await Amplify.Auth.signIn(username: "alice", password: password)
/// ```
///
/// Every member is safe to call from any thread or task.
public enum Amplify {
    /// Sign-up, sign-in, sessions, user attributes.
    public static let Auth = AuthCategory()
    /// Event recording.
    public static let Analytics = AnalyticsCategory()
    /// Objects in a bucket or a local folder.
    public static let Storage = StorageCategory()
    /// GraphQL (AppSync, with real-time subscriptions) and REST (API Gateway).
    public static let API = APICategory()
    /// Publish and subscribe between categories and application code. Works before `configure`.
    public static let Hub = HubCategory()
    /// Loggers. Works before `configure`.
    public static let Logging = LoggingCategory()
    /// Factories for the plugin keys a configuration file may name.
    public static let registry = PluginRegistry()

    /// Every category `configure` configures, in configuration order: Logging, Hub, Auth, then
    /// the rest. Adding a category is one entry here and its ``ConfigurableCategory`` conformance.
    static let configurableCategories: [any ConfigurableCategory] = [Logging, Hub, Auth, Analytics, Storage, API]

    struct CoreState {
        var isConfigured = false
        var isConfiguring = false
        /// The configuration being applied or applied last (its folder resolves relative paths).
        var configuration: AmplifyConfiguration?
        var findings: [ConfigurationFinding] = []
    }

    static let state = Locked(CoreState())

    /// Whether `configure` has succeeded (and `reset` has not been called since).
    public static var isConfigured: Bool { state.withLock { $0.isConfigured } }

    /// What the last successful `configure` read but did not apply: plugin keys with no plugin,
    /// a retired Pinpoint block, keys beyond the Gen 2 schema, categories this package does not
    /// have. Each was also logged (category "Amplify") and, when it is a warning, dispatched on the
    /// Hub's `.logging` channel. Empty before `configure` and after `reset`.
    public static var configurationFindings: [ConfigurationFinding] { state.withLock { $0.findings } }

    /// The event loop every category runs on, started on first use.
    /// - Throws: `EventLoopError` if the loop cannot start.
    public static func eventLoop() throws -> EventLoop {
        try AmplifyRuntime.shared.eventLoop()
    }

    /// Resolves a path from a plugin's configuration block: absolute paths stay as they are;
    /// relative ones resolve against the folder of the configuration file (or the working
    /// directory for configurations built in code). `~/` expands to the home folder.
    public static func resolvePath(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        if path == "~" || path.hasPrefix("~/") {
            return FileManager.default.homeDirectoryForCurrentUser.path + path.dropFirst()
        }
        let base =
            state.withLock { $0.configuration?.baseDirectory }
            ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        return base.appendingPathComponent(path).standardizedFileURL.path
    }

    // MARK: Plugins

    /// Adds a plugin to the category whose plugin protocol it implements.
    ///
    /// - Throws: the category's own error for an empty key (``AuthError/configuration(_:_:_:)``,
    ///   ``StorageError/configuration(_:_:_:)``, ``AnalyticsError/configuration(_:_:_:)``,
    ///   ``APIError/invalidConfiguration(_:_:_:)``, ``HubError/configuration(_:_:_:)``,
    ///   ``LoggingError/configuration(_:_:_:)``), as amplify-swift does;
    ///   ``PluginError/mismatchedPlugin(_:_:_:)`` if it implements no category this package has;
    ///   ``ConfigurationError/amplifyAlreadyConfigured(_:_:_:)`` after `configure`.
    public static func add<P: Plugin>(plugin: P) throws {
        try add(anyPlugin: plugin)
    }

    static func add(anyPlugin plugin: any Plugin) throws {
        if isConfigured {
            throw ConfigurationError.amplifyAlreadyConfigured(
                "Amplify.add(plugin:) was called for '\(plugin.key)' after Amplify.configure().",
                "Add every plugin before calling Amplify.configure(), or call `await Amplify.reset()` first.")
        }
        for category in configurableCategories {
            if try category.accept(plugin) { return }
        }
        throw PluginError.mismatchedPlugin(
            "\(type(of: plugin)) ('\(plugin.key)') implements no category plugin protocol this package supports.",
            "Conform it to AuthCategoryPlugin, AnalyticsCategoryPlugin, StorageCategoryPlugin, APICategoryPlugin, HubCategoryPlugin or LoggingCategoryPlugin."
        )
    }

    // MARK: Configuration

    /// Configures every category from `configuration`, or, when it is `nil`, from the file found
    /// by ``ConfigurationLocator`` (`$AMPLIFY_CONFIG`, then `amplifyconfiguration.json`,
    /// `amplify_outputs.json`, `awsconfiguration.json` in the working directory).
    ///
    /// Each plugin the configuration names is taken from those added with ``add(plugin:)`` or
    /// made by its factory in ``registry``. Categories are configured in the order Logging, Hub,
    /// Auth, Analytics, Storage, API; then every built-in Hub channel receives `Amplify.configured`.
    /// If anything fails, plugins made from factories are removed again and Amplify stays
    /// unconfigured, so a corrected file can be tried.
    ///
    /// - Throws: ``ConfigurationError/amplifyAlreadyConfigured(_:_:_:)`` on a second call;
    ///   ``ConfigurationError`` for a missing or malformed file; ``PluginError/noSuchPlugin(_:_:_:)``
    ///   for a key with no plugin and no factory (listing the known keys);
    ///   ``PluginError/pluginConfigurationError(_:_:_:)`` naming the JSON path of a bad value.
    public static func configure(_ configuration: AmplifyConfiguration? = nil) throws {
        try state.withLock { state in
            guard !state.isConfigured, !state.isConfiguring else {
                throw ConfigurationError.amplifyAlreadyConfigured(
                    "Amplify.configure() was called, but Amplify is already configured.",
                    "Configure once per process, or call `await Amplify.reset()` before configuring again.")
            }
            state.isConfiguring = true
        }
        var succeeded = false
        defer {
            state.withLock { state in
                state.isConfiguring = false
                state.isConfigured = succeeded
                if !succeeded { state.configuration = nil }
            }
        }
        let resolved = try configuration ?? ConfigurationLocator.loadDefault()
        state.withLock { $0.configuration = resolved }
        let findings = try CategoryConfigurator(configuration: resolved, categories: configurableCategories).run()
        state.withLock { $0.findings = findings }
        succeeded = true
        report(findings)
        for channel in HubChannel.amplifyChannels {
            Hub.dispatchToEveryPlugin(channel, payload: HubPayload(eventName: HubPayload.EventName.Amplify.configured))
        }
    }

    /// Logs each finding (warnings at `warn`, categories not handled at `info`) and dispatches
    /// the warnings on the Hub's `.logging` channel.
    private static func report(_ findings: [ConfigurationFinding]) {
        let logger = Logging.logger(forCategory: "Amplify")
        for finding in findings {
            guard finding.isWarning else {
                logger.info(finding.message)
                continue
            }
            logger.warn("\(finding.message) \(finding.suggestion)")
            Hub.dispatch(to: .logging, payload: HubPayload(eventName: HubPayload.EventName.Amplify.configurationWarning, data: finding))
        }
    }

    /// Configures from a Gen 2 `amplify_outputs.json`: `.amplifyOutputs` (the file in the working
    /// directory), `.data(data)` or `.file(url)`.
    /// - Throws: ``ConfigurationError/invalidAmplifyOutputsFile(_:_:_:)`` for a missing or
    ///   unreadable file, ``ConfigurationError/unableToDecode(_:_:_:)`` naming the missing or
    ///   mistyped key, and everything ``configure(_:)-(AmplifyConfiguration?)`` throws.
    public static func configure(with outputs: AmplifyOutputs) throws {
        try configure(outputs.resolve())
    }

    /// Configures from a decoded (or built) Gen 2 configuration, as amplify-swift's
    /// `configure(_:)` for `AmplifyOutputsData` does: the same translation, order and events as
    /// ``configure(with:)``.
    /// - Throws: ``ConfigurationError/unableToDecode(_:_:_:)`` naming a missing or bad value, and
    ///   everything ``configure(_:)-(AmplifyConfiguration?)`` throws.
    public static func configure(_ outputs: AmplifyOutputsData) throws {
        // The value becomes the JSON tree the translator reads directly, with no JSON text
        // written and parsed back in between.
        let json: JSONValue
        do {
            json = try JSONValueEncoder.encode(outputs)
        } catch {
            throw ConfigurationError.invalidAmplifyOutputsFile(
                "The AmplifyOutputsData could not be encoded: \(error).", "Check the values built in code (numbers must be finite).", error)
        }
        try configure(ConfigurationDocument.configuration(from: json, file: nil, requireGen2: true))
    }

    // MARK: Reset

    /// Puts Amplify back to its state at launch: delivers every Hub event already dispatched,
    /// resets and removes every plugin, removes every Hub listener (ending every event stream),
    /// stops the Hub's watchdog, closes every libuv handle and shuts the event loop down (its
    /// thread is joined). Factories in ``registry`` stay registered. The next use of the Hub
    /// starts a new loop.
    ///
    /// Do not call it from a task running on the event loop itself (it cannot join its own
    /// thread); such a call is logged and leaves the loop running.
    public static func reset() async {
        for hub in Hub.existingPlugins { await hub.flush() }
        await Auth.reset()
        await Analytics.reset()
        await Storage.reset()
        await API.reset()
        await Hub.reset()
        await Logging.reset()
        do {
            try AmplifyRuntime.shared.shutdownLoop()
        } catch {
            Logging.logger(forCategory: "Amplify").error("Amplify.reset() could not shut the event loop down cleanly: \(error)")
        }
        state.withLock { $0 = CoreState() }
    }
}
