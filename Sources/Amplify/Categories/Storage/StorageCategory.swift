import Foundation

/// `Amplify.Storage`: objects in a bucket (or a local folder), through the one Storage plugin
/// added or named in the configuration file.
///
/// Calls throw (or, for transfers, return a task that fails with)
/// ``StorageError/configuration(_:_:_:)`` if Amplify is not configured or the category does not
/// have exactly one plugin.
public final class StorageCategory: StorageCategoryBehavior {
    let plugins = CategoryPlugins<any StorageCategoryPlugin>(category: .storage) { StorageError.configuration($0, $1) }

    init() {}

    /// `.storage`.
    public let categoryType: CategoryType = .storage

    /// The plugin with `key`.
    /// - Throws: ``StorageError/configuration(_:_:_:)`` listing the keys there are (amplify-swift's error).
    public func getPlugin(for key: PluginKey) throws -> any StorageCategoryPlugin {
        try plugins.require(key)
    }

    /// Removes the plugin with `key` (before `configure`).
    public func removePlugin(for key: PluginKey) { plugins.remove(key: key) }

    /// Resets every Storage plugin, removes them and marks the category unconfigured (what
    /// `Amplify.reset()` does for Storage).
    public func reset() async {
        for plugin in plugins.takeAll() { await plugin.reset() }
    }

    private func selected() throws -> any StorageCategoryPlugin {
        let selection = plugins.selectOne()
        if case .plugin(let plugin) = selection { return plugin }
        let (description, suggestion) = plugins.explain(selection)
        throw StorageError.configuration(description, suggestion)
    }

    private func transfer<T>(_ start: (any StorageCategoryPlugin) -> StorageTransferTask<T>) -> StorageTransferTask<T> {
        do {
            return start(try selected())
        } catch {
            let (task, controller) = StorageTransferTask<T>.make()
            controller.fail(error)
            return task
        }
    }

    /// Uploads `data` to `path`.
    @discardableResult
    public func uploadData(path: any StoragePath, data: Data, options: StorageUploadDataRequest.Options? = nil) -> StorageUploadDataTask {
        transfer { $0.uploadData(path: path, data: data, options: options) }
    }

    /// Uploads the file at `local` to `path`.
    @discardableResult
    public func uploadFile(path: any StoragePath, local: URL, options: StorageUploadFileRequest.Options? = nil) -> StorageUploadFileTask {
        transfer { $0.uploadFile(path: path, local: local, options: options) }
    }

    /// Downloads the object at `path` into memory.
    public func downloadData(path: any StoragePath, options: StorageDownloadDataRequest.Options? = nil) -> StorageDownloadDataTask {
        transfer { $0.downloadData(path: path, options: options) }
    }

    /// Downloads the object at `path` into the file at `local`.
    @discardableResult
    public func downloadFile(path: any StoragePath, local: URL, options: StorageDownloadFileRequest.Options? = nil) -> StorageDownloadFileTask {
        transfer { $0.downloadFile(path: path, local: local, options: options) }
    }

    /// A URL the object can be fetched from. - Throws: ``StorageError``.
    public func getURL(path: any StoragePath, options: StorageGetURLRequest.Options? = nil) async throws -> URL {
        try await selected().getURL(path: path, options: options)
    }

    /// Removes the object at `path`; returns its path. - Throws: ``StorageError``.
    @discardableResult
    public func remove(path: any StoragePath, options: StorageRemoveRequest.Options? = nil) async throws -> String {
        try await selected().remove(path: path, options: options)
    }

    /// Lists objects below `path`. - Throws: ``StorageError``.
    public func list(path: any StoragePath, options: StorageListRequest.Options? = nil) async throws -> StorageListResult {
        try await selected().list(path: path, options: options)
    }
}
