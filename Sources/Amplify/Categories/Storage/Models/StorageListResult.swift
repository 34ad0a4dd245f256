import Foundation

/// One page of `list`.
public struct StorageListResult: Sendable {
    /// One object.
    public struct Item: Sendable, Equatable {
        /// Its full path.
        public let path: String
        /// amplify-swift's key: the path below the access level's prefix for the deprecated
        /// `list(options:)`, the full path otherwise.
        @available(*, deprecated, message: "Use `path` instead.")
        public var key: String { legacyKey }
        package let legacyKey: String
        /// Its size in bytes.
        public let size: Int?
        /// Its entity tag.
        public let eTag: String?
        /// When it last changed.
        public let lastModified: Date?

        /// An item.
        public init(path: String, size: Int? = nil, eTag: String? = nil, lastModified: Date? = nil) {
            self.init(path: path, key: path, size: size, eTag: eTag, lastModified: lastModified)
        }

        /// An item whose amplify-swift `key` differs from its path.
        package init(path: String, key: String, size: Int?, eTag: String?, lastModified: Date?) {
            self.path = path
            legacyKey = key
            self.size = size
            self.eTag = eTag
            self.lastModified = lastModified
        }
    }

    /// The objects on this page.
    public let items: [Item]
    /// The sub-paths grouped by the delimiter (with `StorageListRequest/SubpathStrategy/exclude`).
    public let excludedSubpaths: [String]
    /// Pass it to the next `list` call for the next page; `nil` on the last page.
    public let nextToken: String?

    /// A page.
    public init(items: [Item], excludedSubpaths: [String] = [], nextToken: String? = nil) {
        self.items = items
        self.excludedSubpaths = excludedSubpaths
        self.nextToken = nextToken
    }
}
