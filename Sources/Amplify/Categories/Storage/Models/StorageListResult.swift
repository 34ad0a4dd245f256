import Foundation

/// One page of `list`.
public struct StorageListResult: Sendable {
    /// One object.
    public struct Item: Sendable, Equatable {
        /// Its full path.
        public let path: String
        /// Its size in bytes.
        public let size: Int?
        /// Its entity tag.
        public let eTag: String?
        /// When it last changed.
        public let lastModified: Date?

        /// An item.
        public init(path: String, size: Int? = nil, eTag: String? = nil, lastModified: Date? = nil) {
            self.path = path
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
