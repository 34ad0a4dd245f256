import AWSPluginsCore
import Amplify
import AmplifyConcurrency
import AmplifyEventLoop
import AmplifyStorageCore
import Foundation

/// The Storage plugin for Amazon S3 (key `awsS3StoragePlugin`), configured from the block the
/// Amplify CLI writes (see ``S3StorageConfiguration``): PutObject for small bodies, multipart
/// upload with parallel parts for large ones (pausable between parts, a failed part tried again,
/// aborted on cancel), GetObject streamed to memory or to a file with ranges, ListObjectsV2,
/// DeleteObject and presigned GET URLs, all signed with SigV4 with keys from the credentials
/// provider chain, path-style when an endpoint override is set.
///
/// Outcomes also go to the Hub (`Storage.uploadData`, … with the key, bytes, URL, list result or
/// the error).
public final class AWSS3StoragePlugin: StorageCategoryPlugin {
    /// The plugin's key in the configuration file.
    public static let pluginKey: PluginKey = "awsS3StoragePlugin"

    /// `"awsS3StoragePlugin"`.
    public var key: PluginKey { Self.pluginKey }
    private let loop: EventLoop?
    private let support: StoragePluginSupport
    private let credentials: (any AWSCredentialsProvider)?
    private let identityId: @Sendable () async throws -> String
    private let caller: @Sendable () async -> StorageAccessRules.Caller
    private let state = Locked<Configured?>(nil)
    /// The operations of each other bucket a call named, made on first use.
    private let otherBuckets = Locked<[String: S3Operations]>([:])

    private struct Configured: Sendable {
        let operations: S3Operations
        let http: HTTPClient
        let configuration: S3StorageConfiguration
        let credentials: any AWSCredentialsProvider
    }

    /// A plugin on `loop` (the Amplify loop by default), reporting to `hub` (`Amplify.Hub` by default), signing with `credentials` (the default
    /// chain, cached); `identityId` gives the id `.fromIdentityID` paths are built from (the
    /// signed-in user's id by default); `caller` says who is calling for Gen 2 access rules
    /// (`StoragePluginSupport.signedInCaller` by default).
    public init(
        loop: EventLoop? = nil, credentials: (any AWSCredentialsProvider)? = nil, identityId: (@Sendable () async throws -> String)? = nil,
        hub: (any HubCategoryBehavior)? = nil, caller: (@Sendable () async -> StorageAccessRules.Caller)? = nil
    ) {
        self.loop = loop
        self.caller = caller ?? StoragePluginSupport.signedInCaller
        support = StoragePluginSupport(hub: hub)
        self.credentials = credentials
        self.identityId =
            identityId ?? {
                do {
                    return try await AuthPluginCredentialsProvider.identityId()
                } catch {
                    throw StorageError.authError(
                        "This path is built from the identity id, and none is available: \(error)", "Sign in first, or use a string path.", error)
                }
            }
    }

    /// Reads the block and prepares the client.
    /// - Throws: `ConfigurationValueError` for a bad key, `AWSPluginsError` for a bad bucket
    ///   name or endpoint.
    public func configure(using configuration: Any?) throws {
        let settings = try S3StorageConfiguration(json: configuration as? JSONValue)
        let addressing = try S3Addressing(bucket: settings.bucket, region: settings.region, configuredEndpoint: settings.endpoint)
        let loop = try loop ?? Amplify.eventLoop()
        let http = try HTTPClient(loop: loop)
        let signing = credentials ?? AuthPluginCredentialsProvider.defaultChain()
        let client = AWSRESTClient(http: http, endpoint: addressing.endpoint, region: settings.region, credentials: signing, options: settings.http)
        otherBuckets.withLock { $0.removeAll() }
        state.withLock {
            $0 = Configured(
                operations: S3Operations(client: client, addressing: addressing), http: http, configuration: settings, credentials: signing)
        }
    }

    private func configured() throws -> (operations: S3Operations, http: HTTPClient, configuration: S3StorageConfiguration) {
        guard let current = state.value else {
            throw StorageError.configuration("The S3 storage plugin is not configured.", "Call Amplify.configure() first.")
        }
        return (current.operations, current.http, current.configuration)
    }

    /// The operations for a call's bucket (the default one without), and the bucket's entry
    /// (with its access rules) when the block names it.
    /// - Throws: `StorageError` for a bucket name the block does not have, or one S3 would refuse.
    private func target(_ bucket: (any StorageBucket)?) throws -> (operations: S3Operations, entry: StorageBucketTable.Entry?) {
        guard let current = state.value else {
            throw StorageError.configuration("The S3 storage plugin is not configured.", "Call Amplify.configure() first.")
        }
        let settings = current.configuration
        guard let entry = try settings.buckets.resolve(bucket) else {
            return (current.operations, settings.buckets.entries.first { $0.bucketName == settings.bucket && $0.region == settings.region })
        }
        if entry.bucketName == settings.bucket, entry.region == settings.region { return (current.operations, entry) }
        let id = "\(entry.bucketName)|\(entry.region)"
        if let made = otherBuckets.withLock({ $0[id] }) { return (made, entry) }
        let addressing: S3Addressing
        do {
            addressing = try S3Addressing(bucket: entry.bucketName, region: entry.region, configuredEndpoint: settings.endpoint)
        } catch {
            throw StorageError.validation(
                "bucket", "The bucket '\(entry.bucketName)' cannot be used: \(error)", "Check the bucket's name and region.", error)
        }
        let client = AWSRESTClient(
            http: current.http, endpoint: addressing.endpoint, region: entry.region, credentials: current.credentials, options: settings.http)
        let operations = S3Operations(client: client, addressing: addressing)
        otherBuckets.withLock { $0[id] = operations }
        return (operations, entry)
    }

    private func check(_ permission: StorageAccessRules.Permission, _ key: String, _ entry: StorageBucketTable.Entry?) async throws {
        try await StoragePluginSupport.checkAccess(permission, path: key, in: entry, caller: caller, identityId: identityId)
    }

    private func key(_ path: any StoragePath) async throws -> String {
        let key = try await path.resolve(identityId: identityId)
        guard !key.isEmpty, !key.hasPrefix("/"), !key.contains("\0"), key.utf8.count <= 1024 else {
            throw StorageError.validation(
                "path",
                "The storage path '\(key.replacingOccurrences(of: "\0", with: "\\0"))' is not a valid S3 key (empty, absolute, NUL, or longer than 1024 bytes).",
                "Use a relative path such as public/photos/cat.jpg.")
        }
        return key
    }

    /// Turns an S3 or transport failure into the Storage error a caller can act on.
    static func storageError(_ error: any Error, key: String) -> any Error {
        if error is StorageError { return error }
        if let error = error as? AWSPluginsError {
            switch error.code {
            case "NoSuchKey", "NotFound":
                return StorageError.keyNotFound(key, "There is no object at '\(key)'.", "Check the path; `list` shows which objects exist.", error)
            case "AccessDenied", "Forbidden": return StorageError.accessDenied(error.errorDescription, error.recoverySuggestion, error)
            case "InvalidRange":
                return StorageError.validation(
                    "range", "The range is outside the object '\(key)'.", "Ask for a range that starts inside the object.", error)
            default: return StorageError.service(error.errorDescription, error.recoverySuggestion, error)
            }
        }
        if let error = error as? HTTPClientError {
            let tries =
                error.attempts > 1
                ? "The request was tried \(error.attempts) times under the retry policy"
                : "The request was not retried (\(error.kind == .other ? "curl error \(error.curlCode) is not a failure the retry policy retries" : "the block's http.maxAttempts is 1"))"
            switch error.kind {
            case .cancelled:
                return StorageError.cancelled("The transfer was cancelled.", "Start it again if you still need it.", error)
            case .timeout:
                return StorageError.service(
                    "S3 did not answer in time: \(error.message)",
                    "\(tries). Check the network and the endpoint, or allow more time in the plugin's `http` block (connectTimeoutSeconds, lowSpeedLimitBytesPerSecond, lowSpeedTimeSeconds, attemptTimeoutSeconds, maxAttempts).",
                    error)
            case .connection:
                return StorageError.service("S3 could not be reached: \(error.message)", "\(tries). Check the network and the endpoint.", error)
            case .other:
                return StorageError.service(
                    "The S3 request failed: \(error.message)", "\(tries). Check the network, the endpoint and the local file.", error)
            }
        }
        return StorageError.service("S3 could not be reached: \(error)", "Check the network and the endpoint.", error)
    }

    // MARK: Uploads

    private enum Source: Sendable {
        case data(Data)
        case file(String)
    }

    private func upload(_ event: String, path: any StoragePath, source: Source, options: StorageUploadOptions?) -> StorageTransferTask<String> {
        support.transfer(event) { [self] gate, controller in
            let key = try await key(path)
            let settings = try configured().configuration
            let (operations, entry) = try target(options?.bucket)
            try await check(.write, key, entry)
            var headers: [(name: String, value: String)] = [("Content-Type", options?.contentType ?? StorageContentType.guess(for: key))]
            for (name, value) in (options?.metadata ?? [:]).sorted(by: { $0.key < $1.key }) {
                headers.append(("x-amz-meta-\(name.lowercased())", value))
            }
            let size: Int64
            switch source {
            case .data(let data): size = Int64(data.count)
            case .file(let path):
                guard let attributes = try? FileManager.default.attributesOfItem(atPath: path), let fileSize = attributes[.size] as? Int else {
                    throw StorageError.localFileNotFound("The local file \(path) cannot be read.", "Check the file's path and permissions.")
                }
                size = Int64(fileSize)
            }
            controller.report(StorageTransferProgress(completedBytes: 0, totalBytes: size))
            try await gate.check()
            do {
                if size <= Int64(settings.multipartThresholdBytes) {
                    let body: HTTPBody =
                        switch source {
                        case .data(let data): .bytes(Array(data))
                        case .file(let path): .file(path)
                        }
                    try await operations.putObject(key, body: body, headers: headers) { sent, _ in
                        controller.report(StorageTransferProgress(completedBytes: sent, totalBytes: size))
                    }
                } else {
                    try await multipart(key, source: source, size: size, headers: headers, operations: operations, settings: settings, gate: gate) {
                        done in
                        controller.report(StorageTransferProgress(completedBytes: done, totalBytes: size))
                    }
                }
            } catch {
                throw Self.storageError(error, key: key)
            }
            controller.report(StorageTransferProgress(completedBytes: size, totalBytes: size))
            return key
        }
    }

    /// CreateMultipartUpload, parts `concurrentParts` at a time (each waits at the gate before it
    /// starts, so a pause lets the parts in flight finish and starts no more; a failed part is
    /// tried up to three more times), then CompleteMultipartUpload; aborted on any failure or
    /// cancellation.
    private func multipart(
        _ key: String, source: Source, size: Int64, headers: [(name: String, value: String)], operations: S3Operations,
        settings: S3StorageConfiguration, gate: StorageTransferGate, progress: @escaping @Sendable (Int64) -> Void
    ) async throws {
        let uploadId = try await operations.createMultipartUpload(key, headers: headers)
        let partSize = Int64(settings.partSizeBytes)
        let partCount = Int((size + partSize - 1) / partSize)
        let sent = Locked([Int64](repeating: 0, count: partCount))
        do {
            var parts: [S3Operations.Part] = []
            try await withThrowingTaskGroup(of: S3Operations.Part.self) { group in
                var next = 0
                while next < min(settings.concurrentParts, partCount) {
                    try await gate.check()
                    let index = next
                    group.addTask {
                        try await self.uploadPart(
                            index, key: key, uploadId: uploadId, source: source, size: size, partSize: partSize, operations: operations, gate: gate,
                            sent: sent, progress: progress)
                    }
                    next += 1
                }
                while let part = try await group.next() {
                    parts.append(part)
                    if next < partCount {
                        try await gate.check()
                        let index = next
                        group.addTask {
                            try await self.uploadPart(
                                index, key: key, uploadId: uploadId, source: source, size: size, partSize: partSize, operations: operations,
                                gate: gate, sent: sent, progress: progress)
                        }
                        next += 1
                    }
                }
            }
            try await gate.check()
            try await operations.completeMultipartUpload(key, uploadId: uploadId, parts: parts)
        } catch {
            await operations.abortMultipartUpload(key, uploadId: uploadId)
            throw error
        }
    }

    private func uploadPart(
        _ index: Int, key: String, uploadId: String, source: Source, size: Int64, partSize: Int64, operations: S3Operations,
        gate: StorageTransferGate, sent: Locked<[Int64]>, progress: @escaping @Sendable (Int64) -> Void
    ) async throws -> S3Operations.Part {
        let offset = Int64(index) * partSize
        let length = min(partSize, size - offset)
        let body: HTTPBody =
            switch source {
            case .data(let data): .bytes(Array(data[data.startIndex + Int(offset)..<data.startIndex + Int(offset + length)]))
            case .file(let path): .fileRange(path, offset: offset, length: length)
            }
        var attempt = 0
        while true {
            try await gate.check()
            do {
                return try await operations.uploadPart(key, uploadId: uploadId, number: index + 1, body: body) { partSent, _ in
                    let total = sent.withLock { parts -> Int64 in
                        parts[index] = partSent
                        return parts.reduce(0, +)
                    }
                    progress(total)
                }
            } catch {
                attempt += 1
                if attempt > 3 || Task.isCancelled || gate.isCancelled { throw error }
                Amplify.Logging.logger(forCategory: "Storage").debug("Part \(index + 1) of \(key) failed (\(error)); trying it again")
            }
        }
    }

    /// Stores `data` at `path` (in parts above `multipartThresholdBytes`); the value is the key.
    public func uploadData(path: any StoragePath, data: Data, options: StorageUploadDataRequest.Options?) -> StorageUploadDataTask {
        upload(HubPayload.EventName.Storage.uploadData, path: path, source: .data(data), options: options)
    }

    /// Stores the file at `local`, streamed (in parts above `multipartThresholdBytes`).
    public func uploadFile(path: any StoragePath, local: URL, options: StorageUploadFileRequest.Options?) -> StorageUploadFileTask {
        upload(HubPayload.EventName.Storage.uploadFile, path: path, source: .file(local.path), options: options)
    }

    // MARK: Downloads

    /// The object (or the `StorageByteRange` in `options.pluginOptions`) in memory.
    public func downloadData(path: any StoragePath, options: StorageDownloadDataRequest.Options?) -> StorageDownloadDataTask {
        support.transfer(HubPayload.EventName.Storage.downloadData) { [self] gate, controller in
            let key = try await key(path)
            let (operations, entry) = try target(options?.bucket)
            try await check(.get, key, entry)
            try await gate.check()
            do {
                let bytes = try await operations.getObject(key, range: options?.pluginOptions as? StorageByteRange, toFile: nil) { done, total in
                    controller.report(StorageTransferProgress(completedBytes: done, totalBytes: total > 0 ? total : nil))
                }
                controller.report(StorageTransferProgress(completedBytes: Int64(bytes.count), totalBytes: Int64(bytes.count)))
                return Data(bytes)
            } catch {
                throw Self.storageError(error, key: key)
            }
        }
    }

    /// The object (or a range of it) streamed into a temporary file beside `local`, renamed over
    /// it when complete.
    public func downloadFile(path: any StoragePath, local: URL, options: StorageDownloadFileRequest.Options?) -> StorageDownloadFileTask {
        support.transfer(HubPayload.EventName.Storage.downloadFile) { [self] gate, controller in
            let key = try await key(path)
            try StoragePluginSupport.checkDownloadDestination(local)
            let (operations, entry) = try target(options?.bucket)
            try await check(.get, key, entry)
            let temporary = local.deletingLastPathComponent().appendingPathComponent(".\(local.lastPathComponent).\(UUID().uuidString).part").path
            try await gate.check()
            do {
                _ = try await operations.getObject(key, range: options?.pluginOptions as? StorageByteRange, toFile: temporary) { done, total in
                    controller.report(StorageTransferProgress(completedBytes: done, totalBytes: total > 0 ? total : nil))
                }
                if FileManager.default.fileExists(atPath: local.path) { try FileManager.default.removeItem(at: local) }
                try FileManager.default.moveItem(atPath: temporary, toPath: local.path)
            } catch {
                try? FileManager.default.removeItem(atPath: temporary)
                throw Self.storageError(error, key: key)
            }
        }
    }

    // MARK: Other calls

    /// A presigned URL valid for `options.expires` seconds: a GET, or with
    /// `AWSStorageGetURLOptions(method: .put)` a PUT that uploads the object. With
    /// `validateObjectExistence` a GET URL is made only for an object that exists.
    /// - Throws: `StorageError/keyNotFound(_:_:_:_:)` and the other mapped S3 errors.
    public func getURL(path: any StoragePath, options: StorageGetURLRequest.Options?) async throws -> URL {
        try await support.reporting(HubPayload.EventName.Storage.getURL) {
            let key = try await key(path)
            let (operations, entry) = try target(options?.bucket)
            let urlOptions = options?.urlOptions ?? AWSStorageGetURLOptions()
            try await check(urlOptions.method == .put ? .write : .get, key, entry)
            do {
                if urlOptions.method == .get, urlOptions.validateObjectExistence, try await operations.headObject(key) == nil {
                    throw StorageError.keyNotFound(key, "There is no object at '\(key)'.", "Check the path; `list` shows which objects exist.")
                }
                let url = try await operations.presigned(key, method: urlOptions.method == .put ? "PUT" : "GET", expires: options?.expires ?? 18_000)
                return url
            } catch {
                throw Self.storageError(error, key: key)
            }
        }
    }

    /// Deletes the object (S3 answers the same whether it existed, so it is checked first).
    /// - Throws: `StorageError/keyNotFound(_:_:_:_:)` and the other mapped S3 errors.
    public func remove(path: any StoragePath, options: StorageRemoveRequest.Options?) async throws -> String {
        try await support.reporting(HubPayload.EventName.Storage.remove) {
            let key = try await key(path)
            let (operations, entry) = try target(options?.bucket)
            try await check(.delete, key, entry)
            do {
                guard try await operations.headObject(key) != nil else {
                    throw StorageError.keyNotFound(key, "There is no object at '\(key)'.", "Check the path; `list` shows which objects exist.")
                }
                try await operations.deleteObject(key)
            } catch {
                throw Self.storageError(error, key: key)
            }
            return key
        }
    }

    /// ListObjectsV2 below `path`: a page of `pageSize`, continued with `nextToken`; with
    /// `.exclude(delimitedBy:)`, the common prefixes become `excludedSubpaths`.
    public func list(path: any StoragePath, options: StorageListRequest.Options?) async throws -> StorageListResult {
        try await support.reporting(HubPayload.EventName.Storage.list) {
            let prefix = try await path.resolve(identityId: identityId)
            let options = options ?? StorageListRequest.Options()
            let (operations, entry) = try target(options.bucket)
            try await check(.list, prefix, entry)
            let delimiter: String? = if case .exclude(let delimiter) = options.subpathStrategy { delimiter } else { nil }
            let listing: S3Operations.Listing
            do {
                listing = try await operations.listObjects(
                    prefix: prefix, delimiter: delimiter, maxKeys: Int(min(max(options.pageSize, 1), 1000)), continuationToken: options.nextToken)
            } catch {
                throw Self.storageError(error, key: prefix)
            }
            let result = StorageListResult(items: listing.items, excludedSubpaths: listing.commonPrefixes, nextToken: listing.nextToken)
            return result
        }
    }

    /// Shuts the HTTP client down.
    public func reset() async {
        let http = state.withLock { state -> HTTPClient? in
            defer { state = nil }
            return state?.http
        }
        await http?.shutdown()
    }
}
