import Foundation

/// amplify-swift's key-based calls, deprecated there and here: each turns its key and the
/// options' access level into a path (`guest` → `public/<key>`, `protected` →
/// `protected/<identity id>/<key>`, `private` → `private/<identity id>/<key>`, where the identity
/// id is `targetIdentityId` when given, else the caller's) and makes the path-based call. Values
/// are amplify-swift's: uploads and `remove` give the key, `list` items carry their key below the
/// prefix.
extension StorageCategory {
    /// The path a key-based call acts on.
    static func legacyPath(_ key: String, level: StorageAccessLevel, target: String?) -> any StoragePath {
        if level == .guest { return .fromString(level.prefix(identityId: "") + key) }
        if let target { return .fromString(level.prefix(identityId: target) + key) }
        return IdentityIDStoragePath(build: { level.prefix(identityId: $0) + key })
    }

    /// A task that follows `inner` and finishes with `transform` of its value.
    static func mapping<T, U>(_ inner: StorageTransferTask<T>, _ transform: @escaping @Sendable (T) -> U) -> StorageTransferTask<U> {
        let hooks = StorageTransferTask<U>.Hooks(cancel: { inner.cancel() }, pause: { inner.pause() }, resume: { inner.resume() })
        let (task, controller) = StorageTransferTask<U>.make(hooks: hooks, hubEventName: nil, hub: nil, metricsFactory: nil, tracked: false)
        Task {
            for await progress in inner.progress { controller.report(progress) }
        }
        Task {
            do {
                controller.succeed(transform(try await inner.value))
            } catch {
                controller.fail(error)
            }
        }
        return task
    }

    /// Uploads `data` under `key` at the options' access level; the task's value is the key.
    @available(*, deprecated, message: "Use uploadData(path:data:options:)")
    @discardableResult
    public func uploadData(key: String, data: Data, options: StorageUploadDataRequest.Options? = nil) -> StorageUploadDataTask {
        let path = Self.legacyPath(key, level: options?.legacyAccessLevel ?? .guest, target: options?.legacyTargetIdentityId)
        return Self.mapping(uploadData(path: path, data: data, options: options)) { _ in key }
    }

    /// Uploads the file at `local` under `key`; the task's value is the key.
    @available(*, deprecated, message: "Use uploadFile(path:local:options:)")
    @discardableResult
    public func uploadFile(key: String, local: URL, options: StorageUploadFileRequest.Options? = nil) -> StorageUploadFileTask {
        let path = Self.legacyPath(key, level: options?.legacyAccessLevel ?? .guest, target: options?.legacyTargetIdentityId)
        return Self.mapping(uploadFile(path: path, local: local, options: options)) { _ in key }
    }

    /// Downloads the object under `key` into memory.
    @available(*, deprecated, message: "Use downloadData(path:options:)")
    @discardableResult
    public func downloadData(key: String, options: StorageDownloadDataRequest.Options? = nil) -> StorageDownloadDataTask {
        downloadData(
            path: Self.legacyPath(key, level: options?.legacyAccessLevel ?? .guest, target: options?.legacyTargetIdentityId), options: options)
    }

    /// Downloads the object under `key` into the file at `local`.
    @available(*, deprecated, message: "Use downloadFile(path:local:options:)")
    @discardableResult
    public func downloadFile(key: String, local: URL, options: StorageDownloadFileRequest.Options? = nil) -> StorageDownloadFileTask {
        downloadFile(
            path: Self.legacyPath(key, level: options?.legacyAccessLevel ?? .guest, target: options?.legacyTargetIdentityId), local: local,
            options: options)
    }

    /// A URL for the object under `key`. - Throws: ``StorageError``.
    @available(*, deprecated, message: "Use getURL(path:options:)")
    public func getURL(key: String, options: StorageGetURLRequest.Options? = nil) async throws -> URL {
        try await getURL(
            path: Self.legacyPath(key, level: options?.legacyAccessLevel ?? .guest, target: options?.legacyTargetIdentityId), options: options)
    }

    /// Removes the object under `key`; returns the key. - Throws: ``StorageError``.
    @available(*, deprecated, message: "Use remove(path:options:)")
    @discardableResult
    public func remove(key: String, options: StorageRemoveRequest.Options? = nil) async throws -> String {
        _ = try await remove(
            path: Self.legacyPath(key, level: options?.legacyAccessLevel ?? .guest, target: options?.legacyTargetIdentityId), options: options)
        return key
    }

    /// Lists the objects at the options' access level (below its `path`, when given); each
    /// item's `key` is its path below the access level's prefix. - Throws: ``StorageError``.
    @available(*, deprecated, message: "Use list(path:options:)")
    public func list(options: StorageListRequest.Options? = nil) async throws -> StorageListResult {
        let level = options?.legacyAccessLevel ?? .guest
        let target = options?.legacyTargetIdentityId
        let below = options?.legacyPath ?? ""
        let result = try await list(path: Self.legacyPath(below, level: level, target: target), options: options)
        // The prefix is `public/`, or `protected/<id>/` / `private/<id>/`: one or two segments.
        let segments = level == .guest ? 1 : 2
        let items = result.items.map { item in
            let parts = item.path.split(separator: "/", maxSplits: segments, omittingEmptySubsequences: false)
            let key = parts.count > segments ? String(parts[segments]) : item.path
            return StorageListResult.Item(path: item.path, key: key, size: item.size, eTag: item.eTag, lastModified: item.lastModified)
        }
        return StorageListResult(items: items, excludedSubpaths: result.excludedSubpaths, nextToken: result.nextToken)
    }
}
