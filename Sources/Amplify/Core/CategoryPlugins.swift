import AmplifyConcurrency

/// The plugins one category holds, and whether the category is configured. Thread-safe; shared
/// by every category facade.
final class CategoryPlugins<P: Sendable>: Sendable {
    private struct State: @unchecked Sendable {
        // @unchecked Sendable: P is Sendable; the dictionary only ever lives inside the Locked.
        var plugins: [PluginKey: P] = [:]
        var isConfigured = false
        var missingPluginAdvice: (description: String, suggestion: String)?
    }

    let category: CategoryType
    /// The category's own error for a description and a recovery suggestion
    /// (`AuthError.configuration`, `StorageError.configuration`, …), as amplify-swift throws.
    let categoryError: @Sendable (ErrorDescription, RecoverySuggestion) -> any Error
    private let state = Locked(State())

    init(category: CategoryType, error: @escaping @Sendable (ErrorDescription, RecoverySuggestion) -> any Error) {
        self.category = category
        categoryError = error
    }

    var isConfigured: Bool { state.withLock { $0.isConfigured } }

    var all: [PluginKey: P] { state.withLock { $0.plugins } }

    var keys: [PluginKey] { state.withLock { $0.plugins.keys.sorted() } }

    func add(_ plugin: P, key: PluginKey) throws {
        guard !key.isEmpty else {
            throw categoryError(
                "Plugin \(type(of: plugin as Any)) has an empty `key`.",
                "Set the `key` property of \(type(of: plugin as Any)): it names the plugin's block in the configuration file.")
        }
        try state.withLock { state in
            guard !state.isConfigured else {
                throw ConfigurationError.amplifyAlreadyConfigured(
                    "Amplify.add(plugin:) was called for '\(key)' after Amplify.configure().",
                    "Add every plugin before calling Amplify.configure(), or call `await Amplify.reset()` first.")
            }
            state.plugins[key] = plugin
        }
    }

    func remove(key: PluginKey) {
        state.withLock { _ = $0.plugins.removeValue(forKey: key) }
    }

    func plugin(for key: PluginKey) -> P? {
        state.withLock { $0.plugins[key] }
    }

    /// The plugin with `key`.
    /// - Throws: the category's error naming the keys there are, as amplify-swift's `getPlugin(for:)`.
    func require(_ key: PluginKey) throws -> P {
        if let found = plugin(for: key) { return found }
        throw categoryError(
            "No plugin has been added for '\(key)'.",
            "Either add a plugin for '\(key)', or use one of the known keys: \(keys.joined(separator: ", ")).")
    }

    func markConfigured(_ configured: Bool) {
        state.withLock { $0.isConfigured = configured }
    }

    /// What to say when a call finds no plugin because the configuration named one that was
    /// skipped (a retired service).
    func setMissingPluginAdvice(_ advice: (description: String, suggestion: String)?) {
        state.withLock { $0.missingPluginAdvice = advice }
    }

    /// Removes and returns every plugin, and marks the category unconfigured.
    func takeAll() -> [P] {
        state.withLock { state in
            let plugins = Array(state.plugins.values)
            state.plugins.removeAll()
            state.isConfigured = false
            state.missingPluginAdvice = nil
            return plugins
        }
    }

    /// Why a call cannot pick one plugin, or the one plugin when it can.
    enum Selection {
        case plugin(P)
        case notConfigured
        case noPlugin
        case ambiguous([PluginKey])
    }

    func selectOne() -> Selection {
        state.withLock { state in
            guard state.isConfigured else { return .notConfigured }
            switch state.plugins.count {
            case 0: return .noPlugin
            case 1: return state.plugins.values.first.map(Selection.plugin) ?? .noPlugin
            default: return .ambiguous(state.plugins.keys.sorted())
            }
        }
    }

    /// The error sentences for a failed selection: (description, recovery suggestion).
    func explain(_ selection: Selection) -> (String, String) {
        let name = category.displayName
        if case .noPlugin = selection, let advice = state.withLock({ $0.missingPluginAdvice }) {
            return ("No plugin was added to the \(name) category: \(advice.description)", advice.suggestion)
        }
        switch selection {
        case .plugin:
            return ("", "")
        case .notConfigured:
            return (
                "Amplify.\(name) was used before Amplify.configure().",
                "Call Amplify.configure() (after adding or registering a \(name) plugin) before using Amplify.\(name)."
            )
        case .noPlugin:
            return (
                "No plugin was added to the \(name) category.",
                "Name a \(name) plugin in the configuration file or add one with Amplify.add(plugin:) before Amplify.configure()."
            )
        case .ambiguous(let keys):
            return (
                "The \(name) category has \(keys.count) plugins (\(keys.joined(separator: ", "))) and this call needs exactly one.",
                "Call it on one plugin: Amplify.\(name).getPlugin(for: \"\(keys.first ?? "")\")."
            )
        }
    }
}
