import Amplify
import AmplifyConcurrency
import AmplifyEventLoop
import AmplifyStorageCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The embedded default Storage plugin (key `localStoragePlugin`): objects in a folder, every
/// file call through libuv's asynchronous file system on the Amplify loop, streamed in chunks
/// (memory stays flat whatever the size), written atomically (temporary file, sync, rename), with
/// content type and metadata kept beside each object. `getURL` gives a `file://` URL.
///
/// Block, under `storage.plugins.localStoragePlugin` (all optional):
/// `{"directory": ".amplify/storage", "chunkSizeBytes": 1048576, "bucket": "main", "buckets": [...]}`.
/// A relative directory is relative to the configuration file. `buckets` lists named buckets as
/// a Gen 2 file's `storage.buckets` does (`name`, `bucket_name`, `aws_region`, `paths`); a call
/// whose options name a bucket (`.fromOutputs(name:)`, `.fromBucketInfo(_:)`) works in that
/// bucket's own folder, `<directory>/buckets/<bucket_name>`, under its access rules; `bucket`
/// names the entry whose rules apply to calls without a bucket. Paths are checked before they touch the disk: empty,
/// absolute, `.`/`..` segments, NUL and paths through symbolic links are refused.
///
/// Outcomes also go to the Hub through the one dispatch path: `Storage.uploadData`,
/// `Storage.downloadFile`, … with the key (uploads, remove), the bytes (`downloadData`), the URL,
/// the list result, or the error.
public final class LocalStoragePlugin: StorageCategoryPlugin {
    /// The plugin's key in the configuration file.
    public static let pluginKey: PluginKey = "localStoragePlugin"

    /// `"localStoragePlugin"`.
    public var key: PluginKey { Self.pluginKey }
    private let storeSlot = Locked<LocalObjectStore?>(nil)
    private let tableSlot = Locked<(table: StorageBucketTable, defaultEntry: StorageBucketTable.Entry?)>((StorageBucketTable(), nil))
    private let loop: EventLoop?
    private let support: StoragePluginSupport
    private let identityId: @Sendable () async throws -> String
    private let caller: @Sendable () async -> StorageAccessRules.Caller

    /// A plugin on `loop` (the Amplify loop by default), reporting to `hub` (`Amplify.Hub` by default); `identityId` gives the id that
    /// `.fromIdentityID` paths are built from (the signed-in user's id by default); `caller` says
    /// who is calling for Gen 2 access rules (`StoragePluginSupport.signedInCaller` by default).
    public init(
        loop: EventLoop? = nil, identityId: (@Sendable () async throws -> String)? = nil, hub: (any HubCategoryBehavior)? = nil,
        caller: (@Sendable () async -> StorageAccessRules.Caller)? = nil
    ) {
        self.loop = loop
        support = StoragePluginSupport(hub: hub)
        self.identityId = identityId ?? StoragePluginSupport.signedInUserIdentityId
        self.caller = caller ?? StoragePluginSupport.signedInCaller
    }

    /// The folder objects are kept in; `nil` before `configure`.
    public var rootDirectory: String? { storeSlot.value?.root }

    /// Reads the block and creates the folders.
    /// - Throws: `ConfigurationValueError` for a bad key, `StorageError` when the folder cannot
    ///   be created.
    public func configure(using configuration: Any?) throws {
        let json = configuration as? JSONValue ?? [:]
        let directory = Amplify.resolvePath(try json.optionalString("directory") ?? ".amplify/storage")
        let chunkSize = try json.optionalInt("chunkSizeBytes") ?? 1 << 20
        guard (4096...(64 << 20)).contains(chunkSize) else {
            throw ConfigurationValueError(
                keyPath: "chunkSizeBytes", expected: "a size from 4096 to 67108864 bytes", found: .number(Double(chunkSize)))
        }
        let table = try StorageBucketTable(json: json)
        let defaultName = try json.optionalString("bucket")
        let defaultEntry = defaultName.flatMap { name in table.entries.first { $0.bucketName == name || $0.name == name } }
        let loop = try loop ?? Amplify.eventLoop()
        let store = LocalObjectStore(root: directory, fileSystem: loop.fileSystem, chunkSize: chunkSize)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StorageError.configuration(
                "The storage folder \(directory) cannot be created: \(error)", "Point `directory` at a writable folder.", error)
        }
        LocalObjectStore.sweepStaleTemporaries(in: directory)
        storeSlot.withLock { $0 = store }
        tableSlot.withLock { $0 = (table, defaultEntry) }
    }

    private func store() async throws -> LocalObjectStore {
        guard let store = storeSlot.value else {
            throw StorageError.configuration("The local storage plugin is not configured.", "Call Amplify.configure() first.")
        }
        try await store.prepare()
        return store
    }

    /// The store of a call's bucket (the default folder without one, `buckets/<bucket_name>`
    /// with one) and the bucket's entry, for its access rules.
    /// - Throws: `StorageError.validation` for an unknown bucket name or one that cannot name a folder.
    private func store(for bucket: (any StorageBucket)?) async throws -> (store: LocalObjectStore, entry: StorageBucketTable.Entry?) {
        let base = try await store()
        let (table, defaultEntry) = tableSlot.value
        guard let entry = try table.resolve(bucket) else { return (base, defaultEntry) }
        let folder = entry.bucketName
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_")
        guard (1...255).contains(folder.count), folder.allSatisfy(allowed.contains), folder != ".", folder != ".." else {
            throw StorageError.validation(
                "bucket", "The bucket name '\(folder)' cannot name a folder.", "Use letters, digits, dots, hyphens and underscores.")
        }
        let named = LocalObjectStore(root: base.root + "/buckets/" + folder, fileSystem: base.fileSystem, chunkSize: base.chunkSize)
        try await base.makeFolderIfNeeded(base.root + "/buckets")
        try await named.prepare()
        return (named, entry)
    }

    private func check(_ permission: StorageAccessRules.Permission, _ key: String, _ entry: StorageBucketTable.Entry?) async throws {
        try await StoragePluginSupport.checkAccess(permission, path: key, in: entry, caller: caller, identityId: identityId)
    }

    private func key(_ path: any StoragePath) async throws -> String {
        try ObjectKey.validated(try await path.resolve(identityId: identityId))
    }

    private func upload(_ event: String, path: any StoragePath, source: ByteSource, options: StorageUploadOptions?) -> StorageTransferTask<String> {
        support.transfer(event) { [self] gate, controller in
            let key = try await key(path)
            let (store, entry) = try await store(for: options?.bucket)
            try await check(.write, key, entry)
            let contentType = options?.contentType ?? StorageContentType.guess(for: key)
            _ = try await store.write(key, from: source, contentType: contentType, metadata: options?.metadata ?? [:], gate: gate) { done, total in
                controller.report(StorageTransferProgress(completedBytes: done, totalBytes: total))
            }
            return key
        }
    }

    /// Stores `data` at `path`; the task's value is the key.
    public func uploadData(path: any StoragePath, data: Data, options: StorageUploadDataRequest.Options?) -> StorageUploadDataTask {
        upload(HubPayload.EventName.Storage.uploadData, path: path, source: .data(data), options: options)
    }

    /// Stores the file at `local` at `path`, streamed; the task's value is the key.
    public func uploadFile(path: any StoragePath, local: URL, options: StorageUploadFileRequest.Options?) -> StorageUploadFileTask {
        upload(HubPayload.EventName.Storage.uploadFile, path: path, source: .file(local.path), options: options)
    }

    /// Reads the object (or the `StorageByteRange` in `options.pluginOptions`) into memory.
    public func downloadData(path: any StoragePath, options: StorageDownloadDataRequest.Options?) -> StorageDownloadDataTask {
        support.transfer(HubPayload.EventName.Storage.downloadData) { [self] gate, controller in
            let key = try await key(path)
            let (store, entry) = try await store(for: options?.bucket)
            try await check(.get, key, entry)
            let bytes = Locked<[UInt8]>([])
            try await store.read(
                key, range: options?.pluginOptions as? StorageByteRange, gate: gate,
                progress: { done, total in
                    controller.report(StorageTransferProgress(completedBytes: done, totalBytes: total))
                }, sink: { chunk in bytes.withLock { $0 += chunk } })
            return Data(bytes.value)
        }
    }

    /// Writes the object (or a `StorageByteRange` of it) to `local`, streamed into a temporary
    /// file beside it that is renamed over `local` at the end.
    public func downloadFile(path: any StoragePath, local: URL, options: StorageDownloadFileRequest.Options?) -> StorageDownloadFileTask {
        support.transfer(HubPayload.EventName.Storage.downloadFile) { [self] gate, controller in
            let key = try await key(path)
            try StoragePluginSupport.checkDownloadDestination(local)
            let (store, entry) = try await store(for: options?.bucket)
            try await check(.get, key, entry)
            let fileSystem = store.fileSystem
            let temporary = local.deletingLastPathComponent().appendingPathComponent(".\(local.lastPathComponent).\(UUID().uuidString).part").path
            let descriptor: Int32
            do {
                descriptor = try await fileSystem.open(temporary, flags: O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o644)
            } catch {
                throw StorageError.localFileNotFound(
                    "Cannot write into \(local.deletingLastPathComponent().path): \(error)", "Check the folder exists and is writable.", error)
            }
            do {
                try await store.read(
                    key, range: options?.pluginOptions as? StorageByteRange, gate: gate,
                    progress: { done, total in
                        controller.report(StorageTransferProgress(completedBytes: done, totalBytes: total))
                    }, into: descriptor)
                try await fileSystem.fsync(descriptor)
                try await fileSystem.close(descriptor)
                try await fileSystem.rename(temporary, to: local.path)
            } catch {
                try? await fileSystem.close(descriptor)
                try? await fileSystem.unlink(temporary)
                throw error
            }
        }
    }

    /// A `file://` URL of the object (`expires` does not apply to files); with
    /// `AWSStorageGetURLOptions(validateObjectExistence: true)` only for an object that exists.
    /// A file has no upload URL: `method: .put` is refused (upload with `uploadData` instead).
    /// - Throws: `StorageError/keyNotFound(_:_:_:_:)` or `StorageError/validation(_:_:_:_:)`.
    public func getURL(path: any StoragePath, options: StorageGetURLRequest.Options?) async throws -> URL {
        try await support.reporting(HubPayload.EventName.Storage.getURL) {
            let key = try await key(path)
            let urlOptions = options?.urlOptions ?? AWSStorageGetURLOptions()
            guard urlOptions.method == .get else {
                throw StorageError.validation(
                    "method", "The local storage plugin has no upload URLs: a file:// URL cannot take a PUT.",
                    "Upload with uploadData or uploadFile, or use the S3 plugin for presigned upload URLs.")
            }
            let (store, entry) = try await store(for: options?.bucket)
            try await check(.get, key, entry)
            if urlOptions.validateObjectExistence { _ = try await store.metadata(key) }
            let url = URL(fileURLWithPath: store.objectsFolder + "/" + key)
            return url
        }
    }

    /// Deletes the object; returns its key.
    /// - Throws: `StorageError/keyNotFound(_:_:_:_:)` or `StorageError/validation(_:_:_:_:)`.
    public func remove(path: any StoragePath, options: StorageRemoveRequest.Options?) async throws -> String {
        try await support.reporting(HubPayload.EventName.Storage.remove) {
            let key = try await key(path)
            let (store, entry) = try await store(for: options?.bucket)
            try await check(.delete, key, entry)
            try await store.remove(key)
            return key
        }
    }

    /// Lists objects whose key starts with `path`, a page at a time, sorted by key; with
    /// `.exclude(delimitedBy:)`, keys that go on past the delimiter are grouped into
    /// `excludedSubpaths`.
    /// - Throws: `StorageError/validation(_:_:_:_:)` for a bad prefix or token.
    public func list(path: any StoragePath, options: StorageListRequest.Options?) async throws -> StorageListResult {
        try await support.reporting(HubPayload.EventName.Storage.list) {
            let prefix = try await path.resolve(identityId: identityId)
            guard !prefix.utf8.contains(0), !prefix.hasPrefix("/"),
                !prefix.utf8.split(separator: UInt8(ascii: "/")).contains(where: { $0.elementsEqual("..".utf8) })
            else {
                throw StorageError.validation("path", "The list prefix '\(prefix)' is not a relative path.", "Use a prefix such as public/photos/.")
            }
            let options = options ?? StorageListRequest.Options()
            var after: String?
            if let token = options.nextToken {
                guard let data = Data(base64Encoded: token), let key = String(data: data, encoding: .utf8) else {
                    throw StorageError.validation(
                        "nextToken", "The page token is not one this plugin gave out.",
                        "Pass the nextToken of the previous page, or none for the first page.")
                }
                after = key
            }
            let (store, entry) = try await store(for: options.bucket)
            try await check(.list, prefix, entry)
            var items: [StorageListResult.Item] = []
            var subpaths: [String] = []
            var last: String?
            var more = false
            // Prefixes compare bytes: "a/" is a prefix of "a/\u{0301}x" although the `Character`s differ.
            for key in try await store.allKeys() where key.utf8.starts(with: prefix.utf8) {
                if let after, key <= after { continue }
                if case .exclude(let delimiter) = options.subpathStrategy, let subpath = Self.subpath(of: key, after: prefix, delimitedBy: delimiter)
                {
                    if subpaths.last != subpath { subpaths.append(subpath) }
                    continue
                }
                guard items.count < Int(max(options.pageSize, 1)) else {
                    more = true
                    break
                }
                let meta = try await store.metadata(key)
                items.append(
                    StorageListResult.Item(
                        path: key, size: Int(meta.size), eTag: meta.eTag.isEmpty ? nil : meta.eTag,
                        lastModified: Date(timeIntervalSince1970: meta.lastModified)))
                last = key
            }
            let result = StorageListResult(
                items: items, excludedSubpaths: subpaths, nextToken: more ? last.map { Data($0.utf8).base64EncodedString() } : nil)
            return result
        }
    }

    /// The key up to and including the first `delimiter` after `prefix`, compared as bytes;
    /// `nil` when no delimiter follows the prefix.
    static func subpath(of key: String, after prefix: String, delimitedBy delimiter: String) -> String? {
        let bytes = Array(key.utf8)
        let needle = Array(delimiter.utf8)
        let start = prefix.utf8.count
        guard !needle.isEmpty, bytes.count >= start + needle.count else { return nil }
        for index in start...(bytes.count - needle.count) where bytes[index..<(index + needle.count)].elementsEqual(needle) {
            return String(decoding: bytes[0..<(index + needle.count)], as: UTF8.self)
        }
        return nil
    }

    /// Nothing to release: every call opens and closes its own files.
    public func reset() async {
        storeSlot.withLock { $0 = nil }
    }
}
