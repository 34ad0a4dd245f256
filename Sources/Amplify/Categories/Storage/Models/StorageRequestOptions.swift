/// Options for `uploadData`.
public enum StorageUploadDataRequest {
    /// Metadata, content type, and plugin options.
    public typealias Options = StorageUploadOptions
}

/// Options for `uploadFile`.
public enum StorageUploadFileRequest {
    /// Metadata, content type, and plugin options.
    public typealias Options = StorageUploadOptions
}

/// Options shared by the upload calls.
public struct StorageUploadOptions: StorageLegacyAccessOptions {
    /// The access level given, for the deprecated key-based calls.
    public let legacyAccessLevel: StorageAccessLevel
    /// The target identity given, for the deprecated key-based calls.
    public let legacyTargetIdentityId: String?
    /// The bucket the call acts on (`nil`: the plugin's default bucket).
    public let bucket: (any StorageBucket)?
    /// Metadata stored with the object.
    public let metadata: [String: String]?
    /// The object's content type (guessed from the name when `nil`).
    public let contentType: String?
    /// Data for the plugin.
    public let pluginOptions: (any Sendable)?

    /// Upload options (`accessLevel` and `targetIdentityId` apply to the deprecated key-based calls).
    public init(
        accessLevel: StorageAccessLevel = .guest, targetIdentityId: String? = nil, metadata: [String: String]? = nil,
        contentType: String? = nil, pluginOptions: (any Sendable)? = nil
    ) {
        legacyAccessLevel = accessLevel
        legacyTargetIdentityId = targetIdentityId
        bucket = nil
        self.metadata = metadata
        self.contentType = contentType
        self.pluginOptions = pluginOptions
    }

    /// Upload options for `bucket`.
    public init(metadata: [String: String]? = nil, contentType: String? = nil, bucket: some StorageBucket, pluginOptions: (any Sendable)? = nil) {
        legacyAccessLevel = .guest
        legacyTargetIdentityId = nil
        self.bucket = bucket
        self.metadata = metadata
        self.contentType = contentType
        self.pluginOptions = pluginOptions
    }
}

/// Options for `downloadData`.
public enum StorageDownloadDataRequest {
    /// Plugin options (a byte range, for example).
    public typealias Options = StoragePluginOptions
}

/// Options for `downloadFile`.
public enum StorageDownloadFileRequest {
    /// Plugin options.
    public typealias Options = StoragePluginOptions
}

/// Options for `remove`.
public enum StorageRemoveRequest {
    /// Plugin options.
    public typealias Options = StoragePluginOptions
}

/// Options of the Storage calls that take nothing but a bucket and data for the plugin.
public struct StoragePluginOptions: StorageLegacyAccessOptions {
    /// The access level given, for the deprecated key-based calls.
    public let legacyAccessLevel: StorageAccessLevel
    /// The target identity given, for the deprecated key-based calls.
    public let legacyTargetIdentityId: String?
    /// The bucket the call acts on (`nil`: the plugin's default bucket).
    public let bucket: (any StorageBucket)?
    /// Data for the plugin.
    public let pluginOptions: (any Sendable)?

    /// Options carrying `pluginOptions` (`accessLevel` and `targetIdentityId` apply to the
    /// deprecated key-based calls).
    public init(accessLevel: StorageAccessLevel = .guest, targetIdentityId: String? = nil, pluginOptions: (any Sendable)? = nil) {
        legacyAccessLevel = accessLevel
        legacyTargetIdentityId = targetIdentityId
        bucket = nil
        self.pluginOptions = pluginOptions
    }

    /// Options for `bucket`.
    public init(bucket: some StorageBucket, pluginOptions: (any Sendable)? = nil) {
        legacyAccessLevel = .guest
        legacyTargetIdentityId = nil
        self.bucket = bucket
        self.pluginOptions = pluginOptions
    }
}

/// Options for `getURL`.
public enum StorageGetURLRequest {
    /// The URL's lifetime, and plugin options.
    public struct Options: StorageLegacyAccessOptions {
        /// The default lifetime of a URL: 18 000 seconds (5 hours), as in amplify-swift.
        public static let defaultExpireInSeconds = 18_000
        /// The access level given, for the deprecated key-based calls.
        public let legacyAccessLevel: StorageAccessLevel
        /// The target identity given, for the deprecated key-based calls.
        public let legacyTargetIdentityId: String?
        /// The bucket the call acts on (`nil`: the plugin's default bucket).
        public let bucket: (any StorageBucket)?
        /// Seconds the URL stays valid (18 000 by default, as in amplify-swift).
        public let expires: Int
        /// Data for the plugin (``AWSStorageGetURLOptions`` for an upload URL or an existence check).
        public let pluginOptions: (any Sendable)?

        /// Options (`accessLevel` and `targetIdentityId` apply to the deprecated key-based call).
        public init(
            accessLevel: StorageAccessLevel = .guest, targetIdentityId: String? = nil, expires: Int = Options.defaultExpireInSeconds,
            pluginOptions: (any Sendable)? = nil
        ) {
            legacyAccessLevel = accessLevel
            legacyTargetIdentityId = targetIdentityId
            bucket = nil
            self.expires = expires
            self.pluginOptions = pluginOptions
        }

        /// Options for `bucket`.
        public init(expires: Int = Options.defaultExpireInSeconds, bucket: some StorageBucket, pluginOptions: (any Sendable)? = nil) {
            legacyAccessLevel = .guest
            legacyTargetIdentityId = nil
            self.bucket = bucket
            self.expires = expires
            self.pluginOptions = pluginOptions
        }

        /// The ``AWSStorageGetURLOptions`` given, or the defaults.
        public var urlOptions: AWSStorageGetURLOptions { pluginOptions as? AWSStorageGetURLOptions ?? AWSStorageGetURLOptions() }
    }
}

/// Options for `list`.
public enum StorageListRequest {
    /// Whether sub-paths below the prefix are listed or grouped.
    public enum SubpathStrategy: Sendable, Equatable {
        /// List everything below the prefix.
        case include
        /// Group what lies below `delimiter` into ``StorageListResult/excludedSubpaths``.
        case exclude(delimitedBy: String = "/")
    }

    /// Paging and grouping.
    public struct Options: StorageLegacyAccessOptions {
        /// amplify-swift's name for ``StorageListRequest/SubpathStrategy``.
        public typealias SubpathStrategy = StorageListRequest.SubpathStrategy
        /// The access level given, for the deprecated key-based calls.
        public let legacyAccessLevel: StorageAccessLevel
        /// The target identity given, for the deprecated key-based calls.
        public let legacyTargetIdentityId: String?
        /// The bucket the call acts on (`nil`: the plugin's default bucket).
        public let bucket: (any StorageBucket)?
        /// The prefix below the access level the deprecated `list(options:)` lists (`nil`: all).
        @available(*, deprecated, message: "Use `path` in Storage API instead of `Options`")
        public var path: String? { legacyPath }
        package let legacyPath: String?
        /// Whether sub-paths are listed or grouped.
        public let subpathStrategy: SubpathStrategy
        /// At most this many items per page (1000 by default).
        public let pageSize: UInt
        /// The token from the previous page.
        public let nextToken: String?
        /// Data for the plugin.
        public let pluginOptions: (any Sendable)?

        /// Options (`accessLevel`, `targetIdentityId` and `path` apply to the deprecated
        /// `list(options:)`).
        public init(
            accessLevel: StorageAccessLevel = .guest, targetIdentityId: String? = nil, path: String? = nil,
            subpathStrategy: SubpathStrategy = .include, pageSize: UInt = 1000, nextToken: String? = nil,
            pluginOptions: (any Sendable)? = nil
        ) {
            legacyAccessLevel = accessLevel
            legacyTargetIdentityId = targetIdentityId
            legacyPath = path
            bucket = nil
            self.subpathStrategy = subpathStrategy
            self.pageSize = pageSize
            self.nextToken = nextToken
            self.pluginOptions = pluginOptions
        }

        /// Options for `bucket`.
        public init(
            subpathStrategy: SubpathStrategy = .include, pageSize: UInt = 1000, bucket: some StorageBucket, nextToken: String? = nil,
            pluginOptions: (any Sendable)? = nil
        ) {
            legacyAccessLevel = .guest
            legacyTargetIdentityId = nil
            legacyPath = nil
            self.bucket = bucket
            self.subpathStrategy = subpathStrategy
            self.pageSize = pageSize
            self.nextToken = nextToken
            self.pluginOptions = pluginOptions
        }
    }
}

/// A byte range to download, given as `pluginOptions` of `downloadData` / `downloadFile`:
/// bytes `start` through `end` inclusive (to the end of the object when `end` is `nil`), as in
/// an HTTP `Range` header. Every Storage plugin of this package understands it.
public struct StorageByteRange: Sendable, Equatable {
    /// The first byte.
    public let start: Int64
    /// The last byte (inclusive), or `nil` for the rest of the object.
    public let end: Int64?

    /// Bytes `start...end` (or `start...` when `end` is `nil`).
    public init(start: Int64, end: Int64? = nil) {
        self.start = start
        self.end = end
    }

    /// The `Range` header value: `bytes=0-99`.
    public var headerValue: String { "bytes=\(start)-\(end.map(String.init) ?? "")" }
}

/// Options that carry amplify-swift's access level and target identity for the deprecated
/// key-based calls.
public protocol StorageLegacyAccessOptions: Sendable {
    /// The access level given (`.guest` unless given).
    var legacyAccessLevel: StorageAccessLevel { get }
    /// The target identity given.
    var legacyTargetIdentityId: String? { get }
}

/// amplify-swift's deprecated option properties, once for every options type.
extension StorageLegacyAccessOptions {
    /// amplify-swift's access level for the key-based calls (`.guest` unless given).
    @available(*, deprecated, message: "Use `path` in Storage API instead of `Options`")
    public var accessLevel: StorageAccessLevel { legacyAccessLevel }
    /// The user whose `protected/` objects a key-based call reads (`nil`: the caller).
    @available(*, deprecated, message: "Use `path` in Storage API instead of `Options`")
    public var targetIdentityId: String? { legacyTargetIdentityId }
}
