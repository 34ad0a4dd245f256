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
public struct StorageUploadOptions: Sendable {
    /// Metadata stored with the object.
    public let metadata: [String: String]?
    /// The object's content type (guessed from the name when `nil`).
    public let contentType: String?
    /// Data for the plugin.
    public let pluginOptions: (any Sendable)?

    /// Upload options.
    public init(metadata: [String: String]? = nil, contentType: String? = nil, pluginOptions: (any Sendable)? = nil) {
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

/// Options of the Storage calls that take nothing but data for the plugin.
public struct StoragePluginOptions: Sendable {
    /// Data for the plugin.
    public let pluginOptions: (any Sendable)?
    /// Options carrying `pluginOptions`.
    public init(pluginOptions: (any Sendable)? = nil) { self.pluginOptions = pluginOptions }
}

/// Options for `getURL`.
public enum StorageGetURLRequest {
    /// The URL's lifetime, and plugin options.
    public struct Options: Sendable {
        /// Seconds the URL stays valid (18 000 by default, as in amplify-swift).
        public let expires: Int
        /// Data for the plugin.
        public let pluginOptions: (any Sendable)?
        /// Options.
        public init(expires: Int = 18_000, pluginOptions: (any Sendable)? = nil) {
            self.expires = expires
            self.pluginOptions = pluginOptions
        }
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
    public struct Options: Sendable {
        /// Whether sub-paths are listed or grouped.
        public let subpathStrategy: SubpathStrategy
        /// At most this many items per page (1000 by default).
        public let pageSize: UInt
        /// The token from the previous page.
        public let nextToken: String?
        /// Data for the plugin.
        public let pluginOptions: (any Sendable)?

        /// Options.
        public init(
            subpathStrategy: SubpathStrategy = .include, pageSize: UInt = 1000, nextToken: String? = nil,
            pluginOptions: (any Sendable)? = nil
        ) {
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
